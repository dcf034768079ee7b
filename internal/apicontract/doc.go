// Package apicontract holds the tests of the damone.v1 wire contract: the
// generated messages in gen/go/damone/v1 must encode to the documented
// JSON (snake_case field names, enum value names, explicit presence of the
// optional rule settings and verdict fields), round-trip through protojson,
// and the generated OpenAPI document must list every REST route of
// proto/damone/v1/damone_http.yaml; every RPC's comment documents its
// errors and route as error_reason.proto and docs/api.md do; and the
// errors ValidateGame and ValidateGames document are the ones an
// in-process server gives, over gRPC and REST. It has no code of its own.
package apicontract

// Package apicontract holds the tests of the damone.v1 wire contract: the
// generated messages in gen/go/damone/v1 must encode to the documented
// JSON (snake_case field names, enum value names, explicit presence of the
// optional rule settings), round-trip through protojson, and the generated
// OpenAPI document must list every REST route of
// proto/damone/v1/damone_http.yaml. It has no code of its own.
package apicontract

// Validates OpenAPI documents with @apidevtools/swagger-parser (its schema
// and its own checks), an implementation apart from the server's
// kin-openapi: `node clients/openapi/validate.mjs FILE...`.
import SwaggerParser from "@apidevtools/swagger-parser";

for (const file of process.argv.slice(2)) {
  const api = await SwaggerParser.validate(file);
  console.log(`${file}: valid ${api.swagger ? "Swagger " + api.swagger : "OpenAPI " + api.openapi}`);
}

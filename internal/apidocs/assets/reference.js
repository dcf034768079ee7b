// The API reference page: Swagger UI on the OpenAPI 3 document this
// server serves. No validator badge (it would call another site), and
// "Try it out" calls this origin only.
window.ui = SwaggerUIBundle({
  url: "/openapi/v3.json",
  dom_id: "#swagger-ui",
  deepLinking: true,
  validatorUrl: null,
});

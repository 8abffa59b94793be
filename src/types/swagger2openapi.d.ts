declare module "swagger2openapi" {
  /** Converts a Swagger 2.0 object to OpenAPI 3.0; with `direct` the promise holds the converted document itself. */
  export function convertObj(swagger: object, options: { patch?: boolean; warnOnly?: boolean; direct?: boolean; resolve?: boolean }): Promise<Record<string, unknown>>;
}

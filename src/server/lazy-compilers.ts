/**
 * Route schemas compiled on a route's first request instead of at start-up.
 *
 * Fastify compiles every route's request validators (ajv) and response serializers (fast-json-stringify) while the
 * service starts: most of a second for the service's routes, before `serve` can listen, and most routes of a replica
 * are never called. These factories hand fastify its own default compilers (@fastify/ajv-compiler,
 * @fastify/fast-json-stringify-compiler, with the same options) wrapped so that each route's function is built the
 * first time it runs; what it accepts, refuses and prints is unchanged. `compilePending` builds whatever is still
 * pending, so a test can prove that every schema compiles.
 *
 * @example
 * const app = Fastify({ schemaController: { compilersFactory: lazyCompilers() } });
 */
import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

type Validate = ((data: unknown) => unknown) & { errors?: unknown };
type Serialize = (data: unknown) => string;
type Compile<F> = (route: { schema: unknown; [key: string]: unknown }) => F;
type Builder<F> = (externalSchemas: unknown, options: unknown) => Compile<F>;

/** Compilations not run yet, per factory (see `compilePending`). */
export interface LazyCompilers {
  buildValidator: Builder<Validate>;
  buildSerializer: Builder<Serialize>;
  /** Builds every validator and serializer not built yet; throws what a bad schema throws. Returns how many. */
  compilePending(): number;
}

/** Fastify's default compiler factories, each route's function built on first use. */
export function lazyCompilers(): LazyCompilers {
  const pending = new Set<() => unknown>();
  // Fastify's defaults, loaded only when a route first runs (they are fastify's own dependencies).
  let validators: Builder<Validate> | undefined;
  let serializers: Builder<Serialize> | undefined;
  const defaultValidators = () => (validators ??= (require("@fastify/ajv-compiler") as () => Builder<Validate>)());
  const defaultSerializers = () => (serializers ??= (require("@fastify/fast-json-stringify-compiler") as () => Builder<Serialize>)());

  /** A route function that is compiled (once, with the options fastify gave) when first called. */
  function deferred<F>(build: () => F): () => F {
    let built: F | undefined;
    const get = () => {
      if (built === undefined) {
        built = build();
        pending.delete(get);
      }
      return built;
    };
    pending.add(get);
    return get;
  }

  return {
    buildValidator: (externalSchemas, options) => (route) => {
      const get = deferred(() => defaultValidators()(externalSchemas, options)(route));
      const validate: Validate = (data) => {
        const compiled = get();
        const result = compiled(data);
        // Fastify reads a failed validation's errors from the function it was given.
        validate.errors = compiled.errors;
        return result;
      };
      return validate;
    },
    buildSerializer: (externalSchemas, options) => (route) => {
      const get = deferred(() => defaultSerializers()(externalSchemas, options)(route));
      return (data) => get()(data);
    },
    compilePending: () => {
      const all = [...pending];
      for (const get of all) get();
      return all.length;
    },
  };
}

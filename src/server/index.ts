/**
 * The service as a library (`import { buildService } from "toolsearch/server"`): a subpath of its own, so that the
 * main entry point does not load fastify.
 *
 * @example
 * const store = await openStore("store.sqlite");
 * const collections = new Collections(store);
 * await collections.start();
 * const app = await buildService({ collections });
 * await app.listen({ port: 8080 });
 */
export { buildService, type ServiceOptions } from "./app.js";
export { Collections, type CollectionsOptions, type LoadedCollection, type ReplicaPosition } from "./collections.js";
export { createApiKey, hashKey, scopeAllows, type NewKeyOptions } from "./auth.js";
export { STATUS_BY_CODE, toErrorAnswer, type ErrorBody } from "./errors.js";
export { seedCollections, collectionNameOf, type SeedFiles } from "./seed.js";
export { DEFAULT_MAX_BODY, DEFAULT_RATE_LIMIT, DEFAULT_REQUEST_TIMEOUT_MS } from "./limits.js";

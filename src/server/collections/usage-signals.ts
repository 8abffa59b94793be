/**
 * What a tool collection's index reads beside its items (the service's side of src/usage/): its curation (synonyms,
 * pinned rules, the learning switch) and the learned signal built from its usage events. Both come from the store;
 * events recorded on this replica also feed its signal at once, so a search reflects them without a round trip.
 *
 * @example
 * const signals = new UsageSignals({ store, log, find: (name) => residents.find(name) });
 * await signals.loadLearner(collection);
 * await signals.applyCuration(collection);
 * await signals.record("crm", events); // store + this replica's signal
 */
import { ToolsearchError } from "../../errors.js";
import type { GatewayUsage } from "../../mcp/gateway.js";
import type { Store, UsageEvent } from "../../store/types.js";
import { CURATION_KINDS, type Learning, type Rules, type Synonyms } from "../../usage/curation.js";
import { learnedFromEvents, USAGE_RETENTION } from "../../usage/events.js";
import { type LoadedCollection, messageOf } from "./types.js";

/** What `UsageSignals` needs. */
export interface UsageSignalsOptions {
  store: Store;
  log: (line: string) => void;
  /** The loaded collection of a name, if any (its learner takes recorded events at once). */
  find: (name: string) => LoadedCollection | undefined;
}

export class UsageSignals {
  constructor(private readonly options: UsageSignalsOptions) {}

  /**
   * Records usage events of a collection: in the store (the source of truth every replica rebuilds from) and in this
   * replica's learned signal at once. Failures are logged, never thrown: usage is not worth failing a search for.
   */
  async record(name: string, events: UsageEvent[]): Promise<void> {
    const collection = this.options.find(name);
    if (collection?.learner) for (const event of events) collection.learner.add(event);
    try {
      await this.options.store.recordUsage(events);
    } catch (error) {
      this.options.log(`toolsearch serve: could not record usage of ${name}: ${messageOf(error)}`);
    }
  }

  /** The usage hook of a collection's MCP gateway: its sessions' events are recorded as the REST search's are. */
  hookFor(name: string): GatewayUsage {
    return { collection: name, record: (events) => void this.record(name, events) };
  }

  /** Builds a tool collection's learned signal from its stored events, and plugs it into its index. */
  async loadLearner(collection: LoadedCollection): Promise<void> {
    if (!collection.tools) return;
    const events = await this.options.store.listUsage(collection.name, USAGE_RETENTION.maxEvents);
    collection.learner = learnedFromEvents(events, collection.tools.analyzer);
    if (!collection.learningOff) collection.tools.setLearned(collection.learner.signal);
  }

  /** Reads a collection's synonyms and rules from the store into its tool index (stored ones were checked on write). */
  async applyCuration(collection: LoadedCollection): Promise<void> {
    if (!collection.tools) return;
    try {
      const [synonyms, rules, learning] = await Promise.all(CURATION_KINDS.map((kind) => this.options.store.getCuration(collection.name, kind)));
      collection.tools.setSynonyms(synonyms as Synonyms | undefined);
      collection.tools.setRules(rules as Rules | undefined);
      collection.learningOff = (learning as Learning | undefined)?.enabled === false;
      collection.tools.setLearned(collection.learningOff ? undefined : collection.learner?.signal);
    } catch (error) {
      if (error instanceof ToolsearchError && error.code === "unknown_collection") return;
      this.options.log(`toolsearch serve: the curation of ${collection.name} cannot be applied: ${messageOf(error)}`);
    }
  }
}

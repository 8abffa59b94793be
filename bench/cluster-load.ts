/**
 * The load generator of bench/cluster.ts, in a process of its own so that its busy event loop does not delay the
 * propagation-lag prober in the parent: autocannon against each URL at once, searches cycling through the queries.
 * Prints one JSON array of autocannon results (one per URL) on stdout.
 *
 *   node --import tsx bench/cluster-load.ts --urls URL,URL --seconds 20 --connections 4 --queries FILE
 */
import { readFileSync } from "node:fs";
import { parseArgs } from "node:util";
import autocannon from "autocannon";

const { values } = parseArgs({
  options: {
    urls: { type: "string" },
    seconds: { type: "string" },
    connections: { type: "string" },
    queries: { type: "string" },
  },
});

const queries = readFileSync(values.queries!, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((line) => JSON.parse(line).query as string)
  .slice(0, 500);

const results = await Promise.all(
  values.urls!.split(",").map((url, i) => {
    let next = i * 97;
    return autocannon({
      url,
      connections: Number(values.connections),
      duration: Number(values.seconds),
      requests: [
        {
          method: "POST",
          headers: { "content-type": "application/json" },
          setupRequest: (request) => ({ ...request, body: JSON.stringify({ query: queries[next++ % queries.length], limit: 5 }) }),
        },
      ],
    });
  }),
);
process.stdout.write(JSON.stringify(results));

/**
 * An enterprise assistant in directory mode: the system prompt lists every tool by category with one line each
 * (byte-identical while the catalog is unchanged, so it stays cached); the model calls describe_tool for the full
 * schema, which also makes the tool callable. Inputs are validated before the handlers run.
 *
 *   npx tsx examples/enterprise-directory.ts
 *
 * Without ANTHROPIC_API_KEY it prints the request it would send and exits 0.
 */
import { ToolIndex } from "../src/index.js";
import { runOrPrint } from "./lib/run-or-print.js";

const catalog = await ToolIndex.fromFile(new URL("./data/enterprise-catalog.json", import.meta.url).pathname);

await runOrPrint({
  catalog,
  mode: "directory",
  system: "You are the company's internal assistant. Find the right tool in the directory, describe it, then use it. Report results plainly.",
  prompt: "Look up customer C-5521: which segment are they in, and how much have they spent with us?",
  handlers: {
    get_customer_profile: ({ customer_id }) => ({ customer_id, name: "Bich Nguyen", segment: "VIP", orders: 47, total_spent_eur: 5840, last_order: "2026-11-28" }),
    get_stock_level: ({ sku }) => ({ sku, available: 234, reserved: 12, in_transit: 50 }),
    get_sales_report: ({ period }) => ({ period, revenue_eur: 1_250_000, orders: 3847, growth: "+12.4%" }),
    get_service_health: ({ service_name, time_window }) => ({ service_name, time_window, uptime: "99.97%", p99_ms: 312, error_rate: "0.03%" }),
  },
  offlineCall: { name: "describe_tool", input: { tool_name: "get_customer_profile" } },
});

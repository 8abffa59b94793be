/**
 * A help-center assistant: it answers from the knowledge base with search_docs / read_doc ("search, then read"),
 * with citations (search_result blocks), and finds support actions with tool_search when it needs one.
 *
 *   npx tsx examples/help-center.ts
 *
 * Without ANTHROPIC_API_KEY it prints the request it would send and exits 0.
 */
import { DocumentIndex, ToolIndex } from "../src/index.js";
import { runOrPrint } from "./lib/run-or-print.js";

const here = (file: string) => new URL(file, import.meta.url).pathname;
const docs = await DocumentIndex.fromFile(here("./data/help-center.jsonl"));
const catalog = await ToolIndex.fromFile(here("./data/support-tools.json"));

await runOrPrint({
  catalog,
  docs,
  docsOptions: { about: "the LearnLoop help center (refunds, certificates, live sessions, accounts, discounts)", format: "search_result" },
  about: "LearnLoop's support actions",
  system: "You are LearnLoop's support assistant. Answer only from help-center articles you found with the tools, and cite them. If no article covers the question, say so and offer to open a support ticket.",
  prompt: "I bought a course 10 days ago and I'm 40% through it. Can I still get my money back?",
  handlers: {
    get_order: ({ order_id }) => ({ order_id, course: "Data Analysis with Python", purchased: "10 days ago", percent_completed: 40 }),
    open_support_ticket: ({ topic }) => ({ ticket: "T-48213", topic, status: "open" }),
  },
  offlineCall: { name: "search_docs", input: { query: "refund money back" } },
});

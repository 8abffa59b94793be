/**
 * A catalog where billing tools are a small minority among tools that use the same words, for visibility tests: a
 * filter applied after a top-k cut would leave a billing-only caller with short pages.
 */
const TOPICS = ["invoice", "refund", "payment", "charge", "subscription", "customer", "receipt", "account"];
const ACTIONS = ["get", "list", "create", "update", "cancel", "export"];
const TEAMS = ["crm", "support", "sales", "ledger", "admin", "ops", "audit", "shipping"];

/** 16 `billing_*` tools and 240 others; every one mentions invoices, so every query touches both. */
export function billingCatalog(): Array<{ name: string; description: string; input_schema: Record<string, unknown> }> {
  const tools = [];
  for (const [i, team] of ["billing", ...TEAMS].entries()) {
    const count = team === "billing" ? 16 : 30;
    for (let n = 0; n < count; n++) {
      const action = ACTIONS[n % ACTIONS.length];
      const topic = TOPICS[(n + i) % TOPICS.length];
      const other = TOPICS[(n * 3 + i + 1) % TOPICS.length];
      tools.push({
        name: `${team}_${action}_${topic}_${n}`,
        description: `${action} the ${topic} of a customer invoice for the ${team} team; also reads the ${other}.`,
        input_schema: { type: "object", properties: { [`${topic}_id`]: { type: "string", description: `The ${topic} id` } } },
      });
    }
  }
  return tools;
}

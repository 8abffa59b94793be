/** A handful of tools for the learned ranker's tests: two about weather, one mail, two about share prices. */
import { normalizeTools } from "../../src/catalog/load.js";

export const rankerTools = () =>
  normalizeTools([
    { name: "get_weather", description: "Current weather for a city", input_schema: { type: "object", properties: { city: { type: "string" } } } },
    { name: "get_forecast", description: "Weather forecast for the next days", input_schema: { type: "object", properties: { days: { type: "integer" } } } },
    { name: "send_email", description: "Send an email message to a recipient", input_schema: { type: "object", properties: { to: { type: "string" } } } },
    { name: "stock_quote", description: "Latest stock price of a listed company", input_schema: { type: "object", properties: {} } },
    { name: "chart_prices", description: "Chart a share price over a period", input_schema: { type: "object", properties: {} } },
  ]);

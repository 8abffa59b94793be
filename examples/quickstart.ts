/** The README's library example, runnable: `node --import tsx examples/quickstart.ts`. */
import { ToolIndex } from "../src/index.js";

const tools = await ToolIndex.fromFile(new URL("./catalog.json", import.meta.url).pathname);
const hits = await tools.search("will it rain tomorrow", { limit: 3 });
console.log(hits);
console.log(tools.describe("get_forecast"));
tools.add({ name: "get_time", description: "Current time in a time zone", input_schema: { type: "object" } });
console.log((await tools.search("what time is it in Tokyo", { limit: 1 }))[0]);
tools.remove("get_time");

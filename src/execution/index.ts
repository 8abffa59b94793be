/** Running tool calls safely: input validation (ajv, coercion, defaults, "what to fix" messages) and execution. */
export { InputValidator, describeErrors, invalidMessage, summarizeParameters, type InputCheck, type InputValidatorOptions } from "./validate-input.js";
export {
  runTool, toContent, DEFAULT_TIMEOUT_MS,
  type RunToolOptions, type ToolCallContext, type ToolCallOutcome, type ToolCallStatus, type ToolHandler, type ToolHandlers, type ToolLookup,
} from "./run-tool.js";

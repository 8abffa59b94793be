import assert from "node:assert/strict";
import { describe, it } from "node:test";
import { DEFAULT_DESCRIPTION_RECIPE, operationDescription, plainText } from "../../src/openapi/text.js";

const recipe = (over: Partial<typeof DEFAULT_DESCRIPTION_RECIPE> = {}) => ({ ...DEFAULT_DESCRIPTION_RECIPE, ...over });

describe("the texts an imported operation is found by", () => {
  it("reads CommonMark as plain text: code fences dropped, marks and link targets removed", () => {
    const text = "## Charges\n**Creates** a [charge](https://docs.example/charges) for `amount`.\n\n```json\n{\"amount\": 100}\n```\n\n| field | meaning |\n|---|---|\n| amount | cents |\n![diagram](img.png) __Note__: snake_case_name and 2*3*4 stay.";
    assert.equal(plainText(text), "Charges Creates a charge for amount. | field | meaning | | amount | cents | diagram Note: snake_case_name and 2*3*4 stay.");
    assert.equal(plainText("Start\n```\nan unclosed fence runs to the end"), "Start");
    assert.equal(plainText("<p>An <b>HTML</b> description</p>"), "An HTML description");
    assert.equal(plainText(undefined), "");
  });

  it("reads hostile text in one pass: unclosed marks, fences, tags and links (these took minutes with lazy patterns)", () => {
    assert.equal(plainText("**a ".repeat(5000)), "a ".repeat(5000).trim());
    assert.equal(plainText("```\n".repeat(2000)), "");
    assert.equal(plainText("<".repeat(20000)), "<".repeat(20000));
    assert.equal(plainText("[a](".repeat(5000)).length, 20000);
  });

  it("writes summary, description, then method and path; the summary is left out when the description repeats it", () => {
    assert.equal(operationDescription({ method: "get", path: "/pets/{id}", summary: "Find a pet", description: "Find a pet by its id." }, recipe()), "Find a pet by its id. (GET /pets/{id})");
    assert.equal(operationDescription({ method: "post", path: "/pets", summary: "Add a pet", description: "Stores it." }, recipe()), "Add a pet. Stores it. (POST /pets)");
    assert.equal(operationDescription({ method: "delete", path: "/pets/{id}" }, recipe()), "(DELETE /pets/{id})");
  });

  it("applies the measured alternatives when asked", () => {
    const texts = { method: "get", path: "/api/v3/users/{user_id}/order_items", summary: "List orders", description: "Every order of a user.", apiTitle: "Shop", apiDescription: "The shop's API. It sells things.", response: "The orders" };
    assert.equal(operationDescription(texts, recipe({ path: "words" })), "List orders. Every order of a user. (GET users order items)");
    assert.equal(operationDescription(texts, recipe({ path: "none", texts: "summary" })), "List orders.");
    assert.equal(operationDescription(texts, recipe({ path: "none", texts: "description" })), "Every order of a user.");
    assert.equal(operationDescription(texts, recipe({ path: "none", apiTitle: true, apiDescription: true, responses: true })), "Shop: List orders. Every order of a user. Returns: The orders. The shop's API.");
  });

  it("cuts a long text at a word so that the method and path still fit", () => {
    const long = operationDescription({ method: "get", path: "/reports", description: "word ".repeat(400) }, recipe({ maxChars: 120 }));
    assert.ok(long.length <= 120, `${long.length} characters`);
    assert.match(long, /word… \(GET \/reports\)$/);
  });
});

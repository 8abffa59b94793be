/** A small seeded generator (mulberry32), so every benchmark run builds the same data. */
export { seededRandom as random } from "../src/eval/seeded-random.js";

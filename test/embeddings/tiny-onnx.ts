/**
 * Builds a tiny sentence encoder in a temporary folder, so the ONNX provider is tested without any download: a BERT
 * WordPiece tokenizer over a few dozen words and an ONNX graph that looks each token up in a hand-made embedding
 * table (one dimension per topic) and masks padding. `@huggingface/transformers` loads it as it would
 * all-MiniLM-L6-v2. The ONNX protobuf is written by hand with the few message fields the graph needs.
 */
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** Words of each topic; a word's vector points along its topic's dimension. */
const TOPICS: string[][] = [
  ["stock", "stocks", "share", "shares", "equity", "price", "prices", "ticker", "market", "trading", "quote"],
  ["weather", "rain", "forecast", "tomorrow", "temperature", "precipitation", "wind", "sunny", "umbrella"],
  ["email", "send", "message", "mail", "inbox", "recipient"],
  ["translate", "language", "french", "english", "translation"],
  ["music", "song", "play", "playlist", "album"],
  ["get", "the", "of", "a", "for", "will", "it", "latest", "and", "to", "on", "current", "what", "is"],
];
const DIMS = 8;
const SPECIAL = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"];

export function buildTinyModel(dir: string): void {
  mkdirSync(join(dir, "onnx"), { recursive: true });
  const vocab: Record<string, number> = {};
  SPECIAL.forEach((t, i) => (vocab[t] = i));
  const table: number[][] = SPECIAL.map((_, i) => oneHot(i === 1 ? 6 : 7, i === 0 ? 0 : 0.2));
  TOPICS.forEach((words, topic) => {
    for (const word of words) {
      vocab[word] = table.length;
      // Filler words (the last topic) weigh little, as a trained model learns.
      table.push(oneHot(topic === TOPICS.length - 1 ? 7 : topic, topic === TOPICS.length - 1 ? 0.1 : 1));
    }
  });
  writeFileSync(join(dir, "config.json"), JSON.stringify({ model_type: "bert", architectures: ["BertModel"], hidden_size: DIMS, vocab_size: table.length }));
  writeFileSync(join(dir, "tokenizer_config.json"), JSON.stringify({
    tokenizer_class: "BertTokenizer", do_lower_case: true, model_max_length: 128,
    cls_token: "[CLS]", sep_token: "[SEP]", pad_token: "[PAD]", unk_token: "[UNK]", mask_token: "[MASK]",
  }));
  writeFileSync(join(dir, "tokenizer.json"), JSON.stringify(tokenizer(vocab)));
  writeFileSync(join(dir, "onnx", "model.onnx"), model(table));
}

function oneHot(dim: number, value: number): number[] {
  const v = new Array<number>(DIMS).fill(0);
  v[dim] = value;
  return v;
}

function tokenizer(vocab: Record<string, number>): unknown {
  const special = (id: string) => ({ id, ids: [vocab[id]], tokens: [id] });
  return {
    version: "1.0",
    truncation: null,
    padding: null,
    added_tokens: SPECIAL.map((content, id) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true })),
    normalizer: { type: "BertNormalizer", clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: "BertPreTokenizer" },
    post_processor: {
      type: "TemplateProcessing",
      single: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } }],
      pair: [{ SpecialToken: { id: "[CLS]", type_id: 0 } }, { Sequence: { id: "A", type_id: 0 } }, { SpecialToken: { id: "[SEP]", type_id: 0 } }, { Sequence: { id: "B", type_id: 1 } }, { SpecialToken: { id: "[SEP]", type_id: 1 } }],
      special_tokens: { "[CLS]": special("[CLS]"), "[SEP]": special("[SEP]") },
    },
    decoder: { type: "WordPiece", prefix: "##", cleanup: true },
    model: { type: "WordPiece", unk_token: "[UNK]", continuing_subword_prefix: "##", max_input_chars_per_word: 100, vocab },
  };
}

// --- A minimal protobuf writer: varints and length-delimited fields are all ONNX needs here. ---

function varint(value: bigint): number[] {
  let v = BigInt.asUintN(64, value);
  const out: number[] = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return out;
}
const int = (field: number, value: number | bigint) => [...varint(BigInt(field << 3)), ...varint(BigInt(value))];
const bytes = (field: number, data: Uint8Array | number[]) => [...varint(BigInt((field << 3) | 2)), ...varint(BigInt(data.length)), ...data];
const str = (field: number, s: string) => bytes(field, [...Buffer.from(s, "utf8")]);

const FLOAT = 1;
const INT64 = 7;

function tensor(name: string, dims: number[], type: number, raw: Uint8Array): number[] {
  return [...dims.flatMap((d) => int(1, d)), ...int(2, type), ...str(8, name), ...bytes(9, raw)];
}

function valueInfo(name: string, type: number, dims: Array<number | string>): number[] {
  const dim = dims.flatMap((d) => bytes(1, typeof d === "number" ? int(1, d) : str(2, d)));
  const tensorType = [...int(1, type), ...bytes(2, dim)];
  return [...str(1, name), ...bytes(2, bytes(1, tensorType))];
}

function node(op: string, inputs: string[], outputs: string[], attributes: number[][] = []): number[] {
  return [...inputs.flatMap((i) => str(1, i)), ...outputs.flatMap((o) => str(2, o)), ...str(3, `${op}_${outputs[0]}`), ...str(4, op), ...attributes.flatMap((a) => bytes(5, a))];
}

const intAttribute = (name: string, value: number) => [...str(1, name), ...int(3, value), ...int(20, 2)];

function model(table: number[][]): Uint8Array {
  const weights = new Uint8Array(Float32Array.from(table.flat()).buffer);
  const axes = new Uint8Array(BigInt64Array.from([-1n]).buffer);
  const graph = [
    ...bytes(1, node("Gather", ["embeddings", "input_ids"], ["token_vectors"])),
    ...bytes(1, node("Cast", ["attention_mask"], ["mask_float"], [intAttribute("to", FLOAT)])),
    ...bytes(1, node("Unsqueeze", ["mask_float", "last_axis"], ["mask_3d"])),
    ...bytes(1, node("Mul", ["token_vectors", "mask_3d"], ["last_hidden_state"])),
    ...str(2, "tiny_encoder"),
    ...bytes(5, tensor("embeddings", [table.length, DIMS], FLOAT, weights)),
    ...bytes(5, tensor("last_axis", [1], INT64, axes)),
    ...bytes(11, valueInfo("input_ids", INT64, ["batch", "sequence"])),
    ...bytes(11, valueInfo("attention_mask", INT64, ["batch", "sequence"])),
    ...bytes(12, valueInfo("last_hidden_state", FLOAT, ["batch", "sequence", DIMS])),
  ];
  const opset = [...str(1, ""), ...int(2, 13)];
  return Uint8Array.from([...int(1, 8), ...str(2, "toolsearch-test"), ...bytes(7, graph), ...bytes(8, opset)]);
}

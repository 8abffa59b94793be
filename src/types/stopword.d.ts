declare module "stopword" {
  export const eng: string[];
  export function removeStopwords(tokens: string[], stopwords?: string[]): string[];
}

/** The same module, as the package's ES module build (see src/text/filters/stopwords.ts). */
declare module "stopword/dist/stopword.esm.mjs" {
  export * from "stopword";
}

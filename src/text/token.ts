/** A token flowing through the analysis pipeline. */
export interface Token {
  /** The token text at this stage of the pipeline. */
  text: string;
  /**
   * True for the joined form of a compound identifier (`get_stock_level` → `getstocklevel`): it is matched as a
   * whole, so stopword and stemming filters leave it alone.
   */
  keyword?: boolean;
}

/** One stage of analysis: takes the token stream and returns the next one. Filters are small; they may rewrite the tokens they are given (the pipeline owns them). */
export type TokenFilter = (tokens: Token[]) => Token[];

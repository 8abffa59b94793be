/**
 * The framing of a request sentence, as an encoder need not read it: "Also, could you please tell me the latest news
 * about Tesla?" asks for "the latest news about Tesla"; the connective, the politeness and the request form say how
 * it is asked, not what for, and a sentence encoder weighs them in like any other words. English only, and only
 * words that never name what a tool does.
 *
 * @example
 * ```ts
 * stripFraming("Also, could you please tell me the latest news about Tesla?"); // "the latest news about Tesla"
 * ```
 */

/** How much framing is taken off: `connectives` only the connective, politeness and modal openings; `requests` also "I want to", "help me", "tell me", "I'm looking for". */
export type FramingLevel = "connectives" | "requests";

/** Openings that join a sentence to the one before ("also", "and then", "in addition"). */
const CONNECTIVE =
  /^(?:and then|and also|and|then|also|additionally|moreover|furthermore|in addition|finally|lastly|after that|afterwards)\b[,:]?\s+/i;
/** Openings that are framing only when a comma follows them ("so, …", "hey, …"; not "next week's weather"). */
const INTERJECTION = /^(?:so|now|well|next|plus|besides|ok|okay|hey|hi|hello)\s*,\s*/i;
const PLEASE = /^(?:please|kindly)\b[,]?\s+/i;
/** "can you", "could you please", "would you also". */
const MODAL_YOU = /^(?:can|could|would|will)\s+(?:you|u)\s+(?:please\s+|kindly\s+|also\s+)*/i;

/** A request's own form: "I want to", "I'd also like to", "help me", "tell me", "I'm looking for". */
const REQUEST_FORMS = [
  /^(?:i|we)\s*(?:'d|\u2019d|\s+would)\s+(?:also\s+|really\s+)*(?:like|love)\s+(?:you\s+)?(?:to\s+(?:know\s+|find\s+out\s+)?)?/i,
  /^(?:i|we)\s+(?:also\s+|really\s+)*(?:want|need|wish)\s+(?:you\s+)?(?:to\s+(?:know\s+|find\s+out\s+)?)?/i,
  /^(?:i|we)\s*(?:'m|\u2019m|\s+am|'re|\u2019re|\s+are)\s+(?:also\s+)?(?:looking|searching)\s+for\s+/i,
  /^(?:help|assist)\s+(?:me|us)\s+(?:to\s+|with\s+)?/i,
  /^(?:tell|show|give)\s+(?:me|us)\s+/i,
  /^let\s+(?:me|us)\s+know\s+/i,
  /^provide\s+(?:me|us)\s+with\s+/i,
  /^(?:is\s+(?:there\s+a\s+way|it\s+possible)\s+to|do\s+you\s+know)\s+/i,
];

/** Endings that close a request without saying anything: punctuation, "please", "for me", "thanks". */
const CLOSING = /(?:[,\s]+(?:please|for me|for us|thanks|thank you))?[\s?!.,;:]*$/i;

/** Fewer words than this left, and the sentence is kept whole: framing alone is better than nothing. */
const MIN_WORDS = 2;

/** `sentence` without the framing of a request (see the module comment); the sentence itself when little would remain. */
export function stripFraming(sentence: string, level: FramingLevel = "requests"): string {
  const openings = level === "requests" ? [CONNECTIVE, INTERJECTION, PLEASE, MODAL_YOU, ...REQUEST_FORMS] : [CONNECTIVE, INTERJECTION, PLEASE, MODAL_YOU];
  let text = sentence.trim();
  // Openings stack ("Also, could you please help me find …"): strip until none applies.
  for (let changed = true; changed; ) {
    changed = false;
    for (const opening of openings) {
      const next = text.replace(opening, "");
      if (next !== text) {
        text = next;
        changed = true;
      }
    }
  }
  text = text.replace(CLOSING, "").trim();
  return text.split(/\s+/).filter(Boolean).length >= MIN_WORDS ? text : sentence.trim();
}

/** The part of autocannon's API that bench/serve.ts and bench/cluster.ts use (the package ships no types). */
declare module "autocannon" {
  namespace autocannon {
    interface Request {
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      body?: string;
      setupRequest?: (request: Request, context: Record<string, unknown>) => Request;
    }
    interface Options {
      url: string;
      connections?: number;
      duration?: number;
      requests?: Request[];
    }
    interface Result {
      duration: number;
      requests: { total: number; average: number };
      latency: { p50: number; p99: number; average: number };
      non2xx: number;
      errors: number;
      timeouts: number;
      /** Answers per HTTP status code. */
      statusCodeStats?: Record<string, { count: number }>;
    }
  }
  function autocannon(options: autocannon.Options): Promise<autocannon.Result>;
  export default autocannon;
}

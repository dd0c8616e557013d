/** Reading the site and the node (docs/protocol.md section 5): the site's answers, page by page, and
 * JSON-RPC in batches that get smaller when a node refuses them, as verify_challenge.py reads them. */

export type Fetch = typeof fetch;
export type Progress = (phase: Phase, done: number, total: number) => void;

/** The run's steps, for the progress bar. */
export const PHASES = ["site", "events", "views", "checks"] as const;
export type Phase = (typeof PHASES)[number];

export const PAGE_SIZE = 1000;
export const BATCH = 100;

/** The site or the node could not be read: nothing was decided. */
export class Unavailable extends Error {
  constructor(message: string) {
    super(message);
    this.name = "Unavailable";
  }
}

/** The node answered a call with an error (a range too wide, a batch too large). */
export class Refused extends Unavailable {}

/** A challenge as the site's API shows it (docs/protocol.md 3.6): what the verifier reads of it. */
export interface SiteChallenge {
  id: number;
  poemTitle: string;
  poemText: string;
  instructionsText: string;
  proximityThreshold: number | null;
  solutionSha256: string;
  solutionReveal: string | null;
  solutionSalt: string | null;
  stakedSum: string;
  responseCount: number;
  startTimestamp: number | null;
  closesTimestamp: number | null;
  solutionDeadline: number | null;
  guessWindowSeconds: number | null;
  guessDeadline: number | null;
  minStake: string;
  bond: string;
  termsSha256: string | null;
  termsDigest: string | null;
  openTransactionHash: string | null;
  openBlockNumber: number | null;
}

/** A stake as the public list shows it (docs/protocol.md 3.4). */
export interface SiteStake {
  id: number | null;
  submitterAddress: string;
  submissionStake: string;
  commitment: string;
  transactionHash: string | null;
  blockNumber: number | null;
  logIndex: number | null;
  submissionText: string | null;
  submissionSalt: string | null;
  revealed: boolean;
  isCorrect: boolean | null;
}

export interface SitePayment {
  kind: string;
  seq: number | null;
  to: string;
  amount: string;
  transactionHash: string;
}

/** GET /api/challenges/{id}/winners (docs/protocol.md 3.5). */
export interface SiteWinners {
  final: boolean;
  earliest: { id: number | null } | null;
  highest: { id: number | null } | null;
  prizes: { earliest?: string; highest?: string; share?: string };
  payments: SitePayment[];
}

export interface SiteAnswers {
  challenge: SiteChallenge;
  winners: SiteWinners;
  stakes: SiteStake[];
}

async function getJson(fetchImpl: Fetch, url: string, signal?: AbortSignal): Promise<{ body: unknown; link: string }> {
  let answer: Response;
  try {
    answer = await fetchImpl(url, { headers: { Accept: "application/json" }, signal });
  } catch (error) {
    if (signal?.aborted) throw error;
    throw new Unavailable(`GET ${url}: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (!answer.ok) throw new Unavailable(`GET ${url}: HTTP ${answer.status}`);
  return { body: await answer.json(), link: answer.headers.get("Link") ?? "" };
}

/** The next page of a Link header, kept on the site's own address (a path and its query). */
export function nextPath(link: string): string | null {
  const match = /<([^>]+)>\s*;\s*rel="?next"?/.exec(link);
  if (!match?.[1]) return null;
  const url = new URL(match[1], "http://site.invalid");
  return url.pathname + url.search;
}

/** The challenge, its winners and its public stakes (empty until the solution is revealed). `site` is
 * the origin requests go to ("" in the page: its own). */
export async function readSite(
  fetchImpl: Fetch,
  site: string,
  challengeId: number,
  progress: Progress,
  signal?: AbortSignal,
): Promise<SiteAnswers> {
  progress("site", 0, 1);
  const challenge = (await getJson(fetchImpl, `${site}/api/challenges/${challengeId}`, signal)).body as SiteChallenge;
  const winners = (await getJson(fetchImpl, `${site}/api/challenges/${challengeId}/winners`, signal))
    .body as SiteWinners;
  const stakes: SiteStake[] = [];
  let path: string | null = `/api/responses?challengeId=${challengeId}&limit=${PAGE_SIZE}`;
  while (path) {
    const { body, link } = await getJson(fetchImpl, `${site}${path}`, signal);
    if (!Array.isArray(body)) throw new Unavailable(`GET ${path}: not a list`);
    stakes.push(...(body as SiteStake[]));
    progress("site", stakes.length, Math.max(challenge.responseCount, stakes.length));
    path = nextPath(link);
  }
  return { challenge, winners, stakes };
}

interface RpcAnswer {
  id?: number;
  result?: unknown;
  error?: unknown;
}

/** JSON-RPC over HTTP, many calls per request; a node that refuses a batch of this size gets smaller
 * ones. */
export class Rpc {
  batch: number;

  constructor(
    readonly url: string,
    readonly fetchImpl: Fetch,
    batch = BATCH,
    readonly signal?: AbortSignal,
  ) {
    this.batch = Math.max(1, batch);
  }

  private async post(payload: unknown): Promise<unknown> {
    let answer: Response;
    try {
      answer = await this.fetchImpl(this.url, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify(payload),
        signal: this.signal,
      });
    } catch (error) {
      if (this.signal?.aborted) throw error;
      throw new Unavailable(`RPC ${this.url}: ${error instanceof Error ? error.message : String(error)}`);
    }
    if (!answer.ok) throw new Refused(`RPC ${this.url}: HTTP ${answer.status}`);
    return answer.json();
  }

  async call(method: string, params: unknown[]): Promise<unknown> {
    return (await this.many([[method, params]]))[0];
  }

  async many(calls: [string, unknown[]][], onDone?: (done: number) => void): Promise<unknown[]> {
    const results: unknown[] = [];
    let start = 0;
    while (start < calls.length) {
      const chunk = calls.slice(start, start + this.batch);
      const payload = chunk.map(([method, params], id) => ({ jsonrpc: "2.0", id, method, params }));
      const answer = await this.post(payload).catch((error: unknown) => {
        if (error instanceof Refused) return null;
        throw error;
      });
      if (!Array.isArray(answer) || answer.length !== chunk.length) {
        if (this.batch > 1) {
          this.batch = Math.max(1, Math.floor(this.batch / 2));
          continue;
        }
        throw new Unavailable(`RPC ${this.url}: unexpected answer ${JSON.stringify(answer).slice(0, 200)}`);
      }
      const byId = new Map((answer as RpcAnswer[]).map((item) => [item.id, item]));
      chunk.forEach(([method], id) => {
        const item = byId.get(id);
        if (!item || item.error !== undefined) {
          throw new Refused(`RPC ${this.url}: ${method} failed: ${JSON.stringify(item?.error ?? null)}`);
        }
        results.push(item.result);
      });
      start += chunk.length;
      onDone?.(start);
    }
    return results;
  }
}

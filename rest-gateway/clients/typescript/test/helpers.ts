// What the tests against a live all-in-one share (`.ci/clients` starts one): the environment, a
// sign-in with the code from the server's log, and a local webhook receiver.
import { readFileSync } from "node:fs";
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";

import { createClient, unwrap } from "business-messaging";

export interface Demo {
  business_account_id: string;
  owner_phone_number: string;
  /** A fresh access token of the owner (`admin demo` signs them in). */
  owner_access_token: string;
  app_token: string;
  follower_count: number;
  followers: { user_id: string; phone_number: string; marketing_opt_in: boolean }[];
}

/** A setting of the run; without it the live tests are skipped, except under CI=true. */
export function env(name: string): string | undefined {
  const value = process.env[name];
  if (!value && process.env.CI === "true") throw new Error(`${name} is not set: run these tests through .ci/clients`);
  return value || undefined;
}

export const live = Boolean(env("BM_BASE_URL"));
export const baseUrl = env("BM_BASE_URL") ?? "";
export const demo: Demo = live ? (JSON.parse(env("BM_DEMO") ?? "{}") as Demo) : ({} as Demo);

const codes = (log: string) => [...readFileSync(log, "utf8").matchAll(/login code is (\d+)/g)].map((m) => m[1]!);

const signedIn = new Map<string, Promise<string>>();

/** An access token for `phone`, signed in with the one-time code from the server's log; once
 * per number and run (a number gets one code a minute), shared by the tests that ask. */
export function signIn(phone: string): Promise<string> {
  let token = signedIn.get(phone);
  if (!token) {
    token = signInOnce(phone);
    signedIn.set(phone, token);
  }
  return token;
}

async function signInOnce(phone: string): Promise<string> {
  const log = env("BM_SERVER_LOG")!;
  const anonymous = createClient({ baseUrl });
  const seen = codes(log).length;
  await anonymous.POST("/auth/business/otp/request", { body: { phone_number: phone } });
  const deadline = Date.now() + 20_000;
  while (codes(log).length <= seen) {
    if (Date.now() > deadline) throw new Error("no login code reached the server's log");
    await sleep(100);
  }
  const code = codes(log).at(-1)!;
  const tokens = unwrap(await anonymous.POST("/auth/business/otp/verify", { body: { phone_number: phone, code } }));
  return tokens.access_token;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Received {
  body: string;
  headers: IncomingHttpHeaders;
}

/** A local webhook receiver: records every request's raw body and headers, answers 204. */
export class Receiver {
  readonly requests: Received[] = [];
  private server: Server;
  url = "";

  private constructor() {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        this.requests.push({ body: Buffer.concat(chunks).toString("utf8"), headers: req.headers });
        res.writeHead(204).end();
      });
    });
  }

  static async start(): Promise<Receiver> {
    const r = new Receiver();
    await new Promise<void>((resolve) => r.server.listen(0, "127.0.0.1", resolve));
    r.url = `http://127.0.0.1:${(r.server.address() as AddressInfo).port}`;
    return r;
  }

  async waitFor(predicate: (r: Received) => boolean, timeoutMs = 30_000): Promise<Received> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.requests.find(predicate);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no such delivery: ${JSON.stringify(this.requests)}`);
      await sleep(100);
    }
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

export const parsed = (r: Received) => JSON.parse(r.body) as { type: string; data: Record<string, unknown> };

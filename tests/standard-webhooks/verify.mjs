// Verifies recorded deliveries with the `standardwebhooks` package from the npm registry.
//
//     node verify.mjs CASES.json DELIVERIES.jsonl
//
// The same cases as verify.py.
import { readFileSync } from "node:fs";
import { Webhook } from "standardwebhooks";

const cases = JSON.parse(readFileSync(process.argv[2], "utf8"));
const deliveries = readFileSync(process.argv[3], "utf8")
  .split("\n")
  .filter((line) => line.trim())
  .map((line) => JSON.parse(line));
for (const c of cases) {
  const mine = deliveries.filter((d) => d.path === c.path);
  if (mine.length === 0) throw new Error(`no delivery reached ${c.path}`);
  for (const d of mine) {
    const body = Buffer.from(d.body, "base64").toString("utf8");
    if (!c.standard) {
      if ("webhook-signature" in d.headers) throw new Error(`standard headers at ${c.path}`);
      continue;
    }
    const payload = new Webhook(c.secret).verify(body, d.headers);
    if (payload.delivery_id !== d.headers["webhook-id"]) throw new Error("webhook-id");
    for (const other of c.others) {
      let verified = true;
      try {
        new Webhook(other).verify(body, d.headers);
      } catch {
        verified = false;
      }
      if (verified) throw new Error(`${c.path}: verified with a secret that must not sign`);
    }
  }
  console.log(`node standardwebhooks: ${mine.length} deliveries to ${c.path} as expected`);
}

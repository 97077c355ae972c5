// Reads {secrets: [...], requests: [{headers, body}]} on stdin and checks
// every request with the official Standard Webhooks package, once per
// secret. It prints one line per check and exits 1 when any check fails.
import { Webhook } from "standardwebhooks";

const chunks = [];
for await (const c of process.stdin) chunks.push(c);
const { secrets, requests } = JSON.parse(Buffer.concat(chunks).toString("utf8"));

let failed = 0;
requests.forEach((r, i) => {
  for (const secret of secrets) {
    try {
      new Webhook(secret).verify(r.body, r.headers);
      console.log(`request ${i}: verified`);
    } catch (err) {
      failed++;
      console.log(`request ${i}: ${err.message}`);
    }
  }
});
console.log(`${requests.length * secrets.length - failed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

/** `npm run dev`: `remix watch` rebuilds pages while `wrangler dev` reloads the Worker. */
import { bin, prepare, serve, wranglerDev } from "./lib";

const port = process.env.PORT ?? "8787";
await prepare(".wrangler/state");
serve(bin("remix"), ["watch"]);
wranglerDev(port, ".wrangler/state", ["--live-reload"]);

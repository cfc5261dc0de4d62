// One quarter of the API's routes (tests/api/fuzz/fuzz.ts), so two shards run side by side.
import { fuzzShard } from "./fuzz";

fuzzShard(1);

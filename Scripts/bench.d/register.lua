-- wrk script of Scripts/bench's register load: posts each line of $BENCH_BODIES once to
-- register-token over the thread's connections, then only GET /healthz; `done` prints one
-- `BENCH key=value…` line (read by register_figures in lib.sh).
local bodies = {}
for line in io.lines(os.getenv("BENCH_BODIES")) do bodies[#bodies + 1] = line end
local headers = { ["Content-Type"] = "application/json" }
local healthz = wrk.format("GET", "/healthz")
posted = 0
request = function()
  if posted >= #bodies then return healthz end
  posted = posted + 1
  return wrk.format("POST", "/v1/push/register-token", headers, bodies[posted])
end
local threads = {}
setup = function(thread) threads[#threads + 1] = thread end
done = function(summary, latency, requests)
  local posted = 0
  for _, thread in ipairs(threads) do posted = posted + thread:get("posted") end
  io.write(string.format("BENCH posted=%d bodies=%d requests=%d duration_us=%d status_errors=%d socket_errors=%d p50_us=%d p99_us=%d\n",
    posted, #bodies, summary.requests, summary.duration, summary.errors.status,
    summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    latency:percentile(50), latency:percentile(99)))
end

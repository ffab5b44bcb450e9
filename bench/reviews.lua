-- wrk script for bench/webhook.sh: POSTs the generated AdmissionReviews in
-- turn, each to the endpoint its file name says (NNNN-validate.json,
-- NNNN-mutate.json), and prints the figures on one line at the end.
-- Usage: wrk ... -s bench/reviews.lua URL -- LISTFILE
local requests = {}
local next_i = 1

function init(args)
  local list = assert(io.open(args[1]))
  for path in list:lines() do
    local f = assert(io.open(path, "rb"))
    local body = f:read("*a")
    f:close()
    local endpoint = path:match("%-(%a+)%.json$")
    -- wrk.format drops wrk.headers (the -H flags) when given headers: merge.
    local headers = {["Content-Type"] = "application/json"}
    for k, v in pairs(wrk.headers) do headers[k] = v end
    requests[#requests + 1] = wrk.format("POST", "/" .. endpoint .. "?timeout=10s", headers, body)
  end
  list:close()
  -- Each thread starts at its own place in the list, so that two threads do
  -- not send the same review at the same moment.
  next_i = math.random(#requests)
end

function request()
  local r = requests[next_i]
  next_i = next_i % #requests + 1
  return r
end

function done(summary, latency, requests)
  local e = summary.errors
  io.write(string.format("RESULT requests=%d duration_us=%d p50_us=%d p99_us=%d errors=%d\n",
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.connect + e.read + e.write + e.status + e.timeout))
end

-- wrk script for the fault cases: POSTs the captured AdmissionReviews in turn
-- and checks every answer: HTTP 200, a response uid that is one of the uids
-- sent, and an "allowed" field. wrk cannot tell which request an answer
-- belongs to, so the uid is checked against the set sent, not the one request.
-- Usage: wrk ... -s tests/faults/reviews.lua URL -- LISTFILE
-- LISTFILE lines: ENDPOINT UID PATH. Prints one RESULT line at the end.
local requests = {}
local uids = {}
local next_i = 1
local threads = {}
bad_status = 0
bad_body = 0

function setup(thread)
  threads[#threads + 1] = thread
end

function init(args)
  local list = assert(io.open(args[1]))
  for line in list:lines() do
    local endpoint, uid, path = line:match("^(%S+) (%S+) (.+)$")
    local f = assert(io.open(path, "rb"))
    local body = f:read("*a")
    f:close()
    uids[uid] = true
    -- wrk.format drops wrk.headers (the -H flags) when given headers: merge.
    local headers = {["Content-Type"] = "application/json"}
    for k, v in pairs(wrk.headers) do headers[k] = v end
    requests[#requests + 1] = wrk.format("POST", "/" .. endpoint, headers, body)
  end
  list:close()
  next_i = math.random(#requests)
end

function request()
  local r = requests[next_i]
  next_i = next_i % #requests + 1
  return r
end

function response(status, headers, body)
  if status ~= 200 then
    bad_status = bad_status + 1
    return
  end
  local uid = body:match('"uid":"([^"]*)"')
  if not uid or not uids[uid] or not body:find('"allowed":', 1, true) then
    bad_body = bad_body + 1
  end
end

function done(summary, latency, requests)
  local s, b = 0, 0
  for _, t in ipairs(threads) do
    s = s + t:get("bad_status")
    b = b + t:get("bad_body")
  end
  local e = summary.errors
  io.write(string.format(
    "RESULT requests=%d non200=%d bad_body=%d connect=%d read=%d write=%d timeout=%d p99_ms=%.1f max_ms=%.1f\n",
    summary.requests, s, b, e.connect, e.read, e.write, e.timeout,
    latency:percentile(99) / 1000, latency.max / 1000))
end

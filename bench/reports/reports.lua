-- wrk script for bench/reports/run.sh: every request is one launch's report batch (POST /api/v1/reports) from a
-- different device: one applied report about SIGN (every fifth device: failed at unpack). RUN_ID keeps device ids
-- distinct across runs, `id` across wrk's threads.
local sign = os.getenv("SIGN") or "missing"
local run = os.getenv("RUN_ID") or "0"
local threads = 0
local counter = 0

function setup(thread)
    threads = threads + 1
    thread:set("id", threads)
end

request = function()
    counter = counter + 1
    local outcome = '"outcome":"applied"'
    if counter % 5 == 0 then outcome = '"outcome":"failed","stage":"unpack"' end
    local body = '{"app":"demo","platform":"ios","appVersion":"7.2.0","deviceId":"device-' .. run .. "-"
        .. tostring(id) .. "-" .. counter .. '","reports":[{"skinSign":"' .. sign .. '",' .. outcome
        .. ',"at":"2026-12-24T18:00:00Z"}]}'
    return wrk.format("POST", "/api/v1/reports", { ["Content-Type"] = "application/json" }, body)
end

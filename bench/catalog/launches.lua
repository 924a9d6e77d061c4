-- wrk script for bench/catalog/run.sh: every request is a launch of a different device (its id and app version in
-- the query), as at a holiday launch peak. BENCH_PATH is /api/v1/catalog (one document per app and platform) or
-- /api/v1/skin (the per-device poll). RUN_ID keeps device ids distinct across runs, `id` across wrk's threads.
local path = os.getenv("BENCH_PATH") or "/api/v1/catalog"
local run = os.getenv("RUN_ID") or "0"
local versions = { "7.0.0", "7.1.3", "7.2.0", "8.0.1", "7.10.2" }
local threads = 0
local counter = 0

function setup(thread)
    threads = threads + 1
    thread:set("id", threads)
end

request = function()
    counter = counter + 1
    local query = "?app=demo&platform=ios&appVersion=" .. versions[counter % #versions + 1]
        .. "&deviceId=device-" .. run .. "-" .. tostring(id) .. "-" .. counter .. "&scale=3"
    return wrk.format("GET", path .. query)
end

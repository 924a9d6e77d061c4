-- wrk script for bench/client/run.sh: every request is a different poll (device id, platform, app version), as at
-- a launch peak. BENCH_PATH is the path to hit: Livery's /api/v1/skin, or /bench for the peers (which ignore the
-- query and return the same bytes, as a static file or a constant would).
local path = os.getenv("BENCH_PATH") or "/api/v1/skin"
local versions = { "7.0.0", "7.1.3", "7.2.0", "8.0.1", "7.10.2" }
local platforms = { "ios", "android" }
local counter = 0

request = function()
    counter = counter + 1
    local query = "?app=demo&platform=" .. platforms[counter % 2 + 1]
        .. "&appVersion=" .. versions[counter % #versions + 1]
        .. "&deviceId=device-" .. counter .. "&scale=3"
    return wrk.format("GET", path .. query)
end

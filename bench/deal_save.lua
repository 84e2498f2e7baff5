-- The deal-save load for wrk (bench/load.py): deals posted as the page's htmx
-- form posts them, each wrk thread round-robin over games of its own.
--
--   wrk -tT -s bench/deal_save.lua http://127.0.0.1:PORT -- CONFIG T
--
-- CONFIG is a text file: the CSRF cookie, the form's CSRF token, then one
-- game a line: its edit token and its revision. Every post sends the version
-- (the revision the form was made against), as the page's form does: each
-- thread counts the revisions of its own games, and since a thread's
-- connections are far fewer than its games, the post before on the same game
-- has been answered before the next is sent, so none is refused as stale.
-- Every answer that is not 2xx is counted; done() prints "bad answers: N",
-- and bench/load.py fails the figure when N > 0.

local threads = {}
local counter = 0

function setup(thread)
  thread:set("id", #threads)
  table.insert(threads, thread)
end

local function lines(path)
  local out = {}
  for line in io.lines(path) do
    if line ~= "" then table.insert(out, line) end
  end
  return out
end

function init(args)
  local config = lines(args[1])
  local cookie, token = config[1], config[2]
  local games = {}
  for i = 3, #config do
    local edit, revision = config[i]:match("^(%S+)%s+(%d+)$")
    table.insert(games, {edit, tonumber(revision)})
  end
  local count = tonumber(args[2] or "1")  -- wrk's -t: the threads share the games out
  paths, versions = {}, {}
  for i, g in ipairs(games) do
    if (i - 1) % count == id then
      table.insert(paths, "/g/" .. g[1] .. "/deal/")
      table.insert(versions, g[2])
    end
  end
  -- A few different deals of a 6-player Points game: a winner, points or a drop.
  math.randomseed(13 + id)
  bodies = {}
  for b = 1, 32 do
    local winner = math.random(1, 6)
    local parts = {"winner=" .. winner}
    for seat = 1, 6 do
      if seat ~= winner then
        if math.random() < 0.2 then
          table.insert(parts, "r" .. seat .. "=first_drop&p" .. seat .. "=")
        else
          table.insert(parts, "r" .. seat .. "=points&p" .. seat .. "=" .. math.random(2, 80))
        end
      end
    end
    bodies[b] = table.concat(parts, "&")
  end
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
  wrk.headers["HX-Request"] = "true"
  wrk.headers["HX-Target"] = "game"
  wrk.headers["X-CSRFToken"] = token
  wrk.headers["Cookie"] = "csrftoken=" .. cookie
  bad = 0
end

local verified = false

function request()
  -- wrk calls the first thread's request() once before any connection, to
  -- check what it returns; that call is never sent, so it counts no save.
  if id == 0 and not verified then
    verified = true
    return wrk.format("POST", paths[1], nil, "version=" .. versions[1] .. "&" .. bodies[1])
  end
  counter = counter + 1
  local g = (counter % #paths) + 1
  local version = versions[g]
  versions[g] = version + 1  -- what this save makes it
  local body = "version=" .. version .. "&" .. bodies[(counter % #bodies) + 1]
  return wrk.format("POST", paths[g], nil, body)
end

function response(status, headers, body)
  if status < 200 or status >= 300 then
    bad = bad + 1
  end
end

function done(summary, latency, requests)
  local total = 0
  for _, thread in ipairs(threads) do
    total = total + (thread:get("bad") or 0)
  end
  io.write(string.format("bad answers: %d\n", total))
end

-- A compare run's heat map (the runner's "heat_map", gpu/README.md "Compare
-- heat maps") as a few lines of block characters for the run buffer: where
-- the two runs differ, at a glance. The runner's grid (up to 64x64 cells) is
-- shrunk again to at most MAX_ROWS x MAX_COLS characters, each the largest of
-- the cells it covers, so one bad element still shows.
local M = {}

M.MAX_ROWS = 8
M.MAX_COLS = 64
-- Lowest .. highest cell of the map; "!" is infinitely different (NaN on one side only).
M.LEVELS = { "·", "░", "▒", "▓", "█" }
M.INFINITE = "!"

local function num(v)
  if v == nil or v == vim.NIL then
    return "inf"
  end
  return ("%.3g"):format(v)
end

local function value(v)
  if type(v) == "number" or type(v) == "string" or type(v) == "boolean" then
    return tostring(v)
  end
  return "?"
end

-- nil unless `h` has the documented shape: a rows x cols grid of numbers or nulls.
local function grid_of(h)
  if type(h) ~= "table" or type(h.grid) ~= "table" or type(h.abs) ~= "table" then
    return nil
  end
  local rows, cols = h.grid[1], h.grid[2]
  if type(rows) ~= "number" or type(cols) ~= "number" or rows < 1 or cols < 1 or #h.abs ~= rows then
    return nil
  end
  for _, row in ipairs(h.abs) do
    if type(row) ~= "table" or #row ~= cols then
      return nil
    end
  end
  return rows, cols
end

--- The character of value `v` (a number, or vim.NIL for infinite) on the scale lo..hi.
function M.char(v, lo, hi)
  if type(v) ~= "number" then
    return M.INFINITE
  end
  local level
  if hi > lo then
    level = 1 + math.floor((v - lo) / (hi - lo) * (#M.LEVELS - 1) + 0.5)
  else
    level = v > 0 and #M.LEVELS or 1
  end
  return M.LEVELS[math.max(1, math.min(#M.LEVELS, level))]
end

--- Lines drawing `h` (indented by two spaces), or {} when it is not a heat map.
--- `sides` names the two runs ({"compiled", "interpret"}).
function M.lines(path, h, sides)
  local rows, cols = grid_of(h)
  if not rows then
    return {}
  end
  local lo, hi
  if h.kind == "mismatch" then
    lo, hi = 0, 1
  else
    for _, row in ipairs(h.abs) do
      for _, v in ipairs(row) do
        if type(v) == "number" then
          lo = lo and math.min(lo, v) or v
          hi = hi and math.max(hi, v) or v
        end
      end
    end
    lo, hi = lo or 0, hi or 0
  end
  local fr, fc = math.ceil(rows / M.MAX_ROWS), math.ceil(cols / M.MAX_COLS)
  local shape = type(h.shape) == "table" and table.concat(vim.tbl_map(tostring, h.shape), ",") or "?"
  local what = h.kind == "mismatch" and ("where %s and %s differ"):format(sides[1], sides[2])
    or ("|%s - %s|"):format(sides[1], sides[2])
  local out = {
    ("  out%s %s, shape [%s]: %d char(s) down x %d across, each the max of %dx%d element(s)"):format(path, what, shape,
      math.ceil(rows / fr), math.ceil(cols / fc), fr * (h.block and h.block[1] or 1), fc * (h.block and h.block[2] or 1)),
  }
  for r0 = 1, rows, fr do
    local chars = {}
    for c0 = 1, cols, fc do
      local worst -- nil: nothing yet; false: infinite
      for r = r0, math.min(rows, r0 + fr - 1) do
        for c = c0, math.min(cols, c0 + fc - 1) do
          local v = h.abs[r][c]
          if type(v) ~= "number" then
            worst = false
          elseif worst ~= false and (worst == nil or v > worst) then
            worst = v
          end
        end
      end
      table.insert(chars, M.char(worst == false and vim.NIL or worst, lo, hi))
    end
    table.insert(out, "  |" .. table.concat(chars) .. "|")
  end
  local scale = h.kind == "mismatch" and ("%s equal, %s differs"):format(M.LEVELS[1], M.LEVELS[#M.LEVELS])
    or ("%s %s .. %s %s"):format(num(lo), table.concat(M.LEVELS), num(hi), "(max |diff| per char)")
  local infinite = false
  for _, row in ipairs(h.abs) do
    for _, v in ipairs(row) do
      infinite = infinite or type(v) ~= "number"
    end
  end
  table.insert(out, "  scale: " .. scale .. (infinite and (", " .. M.INFINITE .. " NaN on one side only") or ""))
  local w = type(h.worst) == "table" and h.worst or nil
  if w and type(w.index) == "table" and h.differing ~= 0 and h.max ~= 0 then
    local where = "[" .. table.concat(vim.tbl_map(tostring, w.index), ", ") .. "]"
    if h.kind == "mismatch" then
      table.insert(out, ("  first mismatch %s: %s %s, %s %s"):format(where, sides[1], value(w.first), sides[2], value(w.second)))
    else
      table.insert(out, ("  worst %s: %s %s, %s %s, |diff| %s"):format(where, sides[1], value(w.first), sides[2],
        value(w.second), num(w.abs)))
    end
  elseif w then
    table.insert(out, "  every element equal")
  end
  return out
end

return M

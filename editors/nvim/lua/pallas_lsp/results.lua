-- A run's result (pallas.run's reply, gpu::RunResult::toJson) as text for the
-- run buffer: status, each mode's outputs and timing, the compare table and
-- heat maps (heatmap.lua), the
-- program's output and the user's frames of a failure. The frames also go to
-- the quickfix list (replaced, not opened: :copen shows it).
local M = {}

local function num(v)
  if type(v) ~= "number" then
    return "-"
  end
  return ("%.4g"):format(v)
end

local function shape(s)
  if type(s) ~= "table" then
    return "?"
  end
  local parts = {}
  for _, n in ipairs(s) do
    table.insert(parts, tostring(n))
  end
  return "[" .. table.concat(parts, ",") .. "]"
end

local function str(v)
  return type(v) == "string" and v or ""
end

--- The user's frames of every error in `result`, innermost last.
function M.frames(result)
  local out = {}
  local function add(err, prefix)
    if type(err) ~= "table" or type(err.frames) ~= "table" then
      return
    end
    for _, f in ipairs(err.frames) do
      if f.user and type(f.line) == "number" and f.line > 0 then
        table.insert(out, {
          filename = str(f.file),
          lnum = f.line,
          text = ("%s%s: %s (in %s)"):format(prefix, str(err.type), str(err.message):gsub("\n.*", ""), str(f["function"])),
        })
      end
    end
  end
  add(result.setup_error, "")
  for _, m in ipairs(type(result.modes) == "table" and result.modes or {}) do
    add(m.error, "[" .. str(m.mode) .. "] ")
  end
  return out
end

--- Lines of the run buffer.
function M.lines(result, args)
  local lines = {}
  local function add(s)
    for _, l in ipairs(vim.split(s, "\n", { plain = true })) do
      table.insert(lines, l)
    end
  end
  add(("%s (%s): %s"):format(str(result.entry) ~= "" and result.entry or (args.entry or "?"),
    str(result.mode) ~= "" and result.mode or (args.mode or "?"), str(result.status)))
  -- The run's own message only when nothing below says what failed: it
  -- repeats a mode's or the setup's error, which follow with their type.
  local explained = type(result.setup_error) == "table"
  for _, m in ipairs(type(result.modes) == "table" and result.modes or {}) do
    explained = explained or type(m.error) == "table"
  end
  if str(result.message) ~= "" and not result.ok and not explained then
    add(result.message)
  end
  for _, m in ipairs(type(result.modes) == "table" and result.modes or {}) do
    add("")
    local timing = m.timing or {}
    local head = "[" .. str(m.mode) .. "] " .. (m.ok and "ok" or "failed")
    if type(timing.compile_s) == "number" then
      head = head .. ", first call (with compiling) " .. num(timing.compile_s) .. " s"
    end
    if type(timing.run_s_median) == "number" then
      head = head .. (", %s %s ms (median of %s)"):format(str(timing.method) == "returned function"
        and "returned function" or "kernels", num(timing.run_s_median * 1000), tostring(timing.runs))
    end
    add(head)
    if type(m.error) == "table" then
      add("  " .. str(m.error.type) .. ": " .. str(m.error.message))
    end
    for _, o in ipairs(type(m.outputs) == "table" and m.outputs or {}) do
      -- An entry such as main() returns None: there is no array to summarise.
      if o.kind == "none" then
        add(("  out%s  None"):format(str(o.path)))
      elseif o.kind == "other" then
        add(("  out%s  a %s (not an array)"):format(str(o.path), str(o.type)))
      else
        add(("  out%s  %s%s  sum %s  min %s  max %s"):format(str(o.path), str(o.dtype), shape(o.shape), num(o.sum),
          num(o.min), num(o.max)))
      end
    end
  end
  if type(result.comparisons) == "table" and #result.comparisons > 0 then
    add("")
    add("compare     max |a-b|   max rel")
    for _, c in ipairs(result.comparisons) do
      local row = c.comparable and ("%-10s  %-10s  %s"):format("out" .. str(c.path), num(c.max_abs_diff), num(c.max_rel_diff))
        or ("%-10s  not comparable"):format("out" .. str(c.path))
      if str(c.note) ~= "" then
        row = row .. "  (" .. c.note .. ")"
      end
      add(row)
    end
    local modes = type(result.modes) == "table" and result.modes or {}
    local sides = { str((modes[1] or {}).mode) ~= "" and modes[1].mode or "compiled",
      str((modes[2] or {}).mode) ~= "" and modes[2].mode or "interpret" }
    for _, c in ipairs(result.comparisons) do
      local map = c.comparable and require("pallas_lsp.heatmap").lines(str(c.path), c.heat_map, sides) or {}
      if #map > 0 then
        add("")
        add(table.concat(map, "\n"))
      end
    end
  end
  if type(result.setup_error) == "table" then
    add("")
    add(str(result.setup_error.type) .. ": " .. str(result.setup_error.message))
  end
  if str(result.stdout) ~= "" then
    add("")
    add("stdout:")
    add(result.stdout:gsub("\n$", ""))
  end
  local frames = M.frames(result)
  if #frames > 0 then
    add("")
    add("frames (quickfix list, :copen):")
    for _, f in ipairs(frames) do
      add(("  %s:%d  %s"):format(vim.fn.fnamemodify(f.filename, ":~:."), f.lnum, f.text))
    end
  end
  return lines
end

--- Shows `result` (or a plain string) with `scratch`; returns {summary, ok}.
function M.show(result, args, scratch)
  if type(result) ~= "table" then
    local text = type(result) == "string" and result or "the server sent no result"
    scratch("pallas://run", text)
    return { summary = (text:gsub("\n.*", "")), ok = false }
  end
  local name = "pallas://run"
  scratch(name, M.lines(result, args))
  local frames = M.frames(result)
  if #frames > 0 then
    vim.fn.setqflist({}, "r", { title = "pallas-lsp: " .. str(result.entry) .. " (" .. str(result.mode) .. ")", items = frames })
  end
  local summary = ("%s (%s): %s"):format(str(result.entry), str(result.mode), str(result.status))
  if #frames > 0 then
    summary = summary .. (" - %d frame%s in the quickfix list"):format(#frames, #frames == 1 and "" or "s")
  end
  return { summary = summary, ok = result.ok == true }
end

return M

-- Which function a run command runs when none is named: the top-level
-- function at the cursor (the same rule as the VS Code extension's entry.ts).
-- The server stays the judge of whether it can run it.
local M = {}


local function def_name(line)
  if not line then
    return nil
  end
  return line:match("^def%s+([%a_][%w_]*)%s*%(") or line:match("^async%s+def%s+([%a_][%w_]*)%s*%(")
end
M.def_name = def_name

--- Top-level functions of `lines` as { name = ..., line = 1-based }.
function M.top_level_functions(lines)
  local out = {}
  for i, text in ipairs(lines) do
    local name = def_name(text)
    if name then
      table.insert(out, { name = name, line = i })
    end
  end
  return out
end

--- The top-level function at 1-based `line`: on a decorator, the function it
--- decorates; in a body, the last top-level def above unless another top-level
--- statement comes between.
function M.enclosing(lines, line)
  if line < 1 or line > #lines then
    return nil
  end
  if lines[line]:sub(1, 1) == "@" then
    local j = line
    while j <= #lines and lines[j]:match("^[@%s)]") do
      local name = def_name(lines[j + 1])
      if name then
        return name
      end
      j = j + 1
    end
    return nil
  end
  for i = line, 1, -1 do
    local name = def_name(lines[i])
    if name then
      return name
    end
    if lines[i]:match("^[^%s#)%]}@]") then
      return nil
    end
  end
  return nil
end

return M

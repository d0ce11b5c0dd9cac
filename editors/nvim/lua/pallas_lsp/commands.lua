-- User commands. Runs and the doctor go to the server as
-- workspace/executeCommand ("pallas.run", "pallas.doctor"); :PallasMlir is the
-- custom "pallas/mlir" request. Output goes to scratch buffers.
local compat = require("pallas_lsp.compat")
local entry = require("pallas_lsp.entry")

local M = {}

local MODES = { compiled = true, interpret = true, compare = true }

local function client_for(bufnr)
  local client = compat.clients(bufnr, require("pallas_lsp").name)[1]
  if not client then
    vim.notify("pallas-lsp: no server attached to this buffer", vim.log.levels.ERROR)
  end
  return client
end

--- Shows `text` (string or list of lines) in a read-only scratch buffer named `name`.
function M.scratch(name, text, filetype)
  local lines = type(text) == "table" and text or vim.split(text, "\n", { plain = true })
  local buf = vim.fn.bufnr(name)
  if buf == -1 or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  local win = vim.fn.bufwinid(buf)
  if win == -1 then
    vim.cmd("botright split")
    vim.api.nvim_win_set_buf(0, buf)
  end
  return buf
end

local function result_text(result)
  if type(result) == "string" then
    return result
  end
  return vim.inspect(result)
end

local function summary(result)
  if type(result) == "string" then
    return vim.split(result, "\n", { plain = true })[1]
  elseif type(result) == "table" then
    for _, key in ipairs({ "summary", "message", "status" }) do
      if type(result[key]) == "string" then
        return result[key]
      end
    end
  end
  return "finished"
end

--- :PallasRun [compiled|interpret|compare] [ENTRY]
function M.run(mode, name)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return
  end
  if not name then
    local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    name = entry.enclosing(lines, vim.api.nvim_win_get_cursor(0)[1])
    if not name then
      vim.notify("pallas-lsp: put the cursor in a top-level function or name one: :PallasRun " .. mode .. " ENTRY",
        vim.log.levels.ERROR)
      return
    end
  end
  if vim.bo[bufnr].modified then
    vim.cmd("silent write") -- the run executes the file on disk
  end
  local args = { uri = vim.uri_from_bufnr(bufnr), entry = name, mode = mode }
  vim.notify(("pallas-lsp: %s run of %s started"):format(mode, name))
  compat.request(client, "workspace/executeCommand", { command = "pallas.run", arguments = { args } },
    function(err, result)
      if err then
        vim.notify(("pallas-lsp: %s run of %s failed: %s"):format(mode, name, err.message or vim.inspect(err)),
          vim.log.levels.ERROR)
        return
      end
      vim.notify(("pallas-lsp: %s (%s): %s"):format(name, mode, summary(result)))
      M.scratch("pallas://run/" .. name .. "/" .. mode, result_text(result))
    end, bufnr)
end

function M.mlir()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return
  end
  local file = vim.fn.fnamemodify(vim.api.nvim_buf_get_name(bufnr), ":t")
  compat.request(client, "pallas/mlir", { textDocument = { uri = vim.uri_from_bufnr(bufnr) } }, function(err, result)
    if err or type(result) ~= "table" then
      vim.notify("pallas-lsp: pallas/mlir failed: " .. (err and err.message or "no result"), vim.log.levels.ERROR)
      return
    end
    M.scratch("pallas://mlir/" .. file .. ".mlir", result.mlir or "", "mlir")
  end, bufnr)
end

function M.doctor()
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return
  end
  compat.request(client, "workspace/executeCommand", { command = "pallas.doctor", arguments = {} },
    function(err, result)
      if err then
        vim.notify("pallas-lsp: doctor failed: " .. (err.message or vim.inspect(err)), vim.log.levels.ERROR)
        return
      end
      M.scratch("pallas://doctor", result_text(result))
    end, bufnr)
end

local function complete_run(arglead, cmdline)
  local words = vim.split(cmdline, "%s+")
  local candidates = {}
  if #words <= 2 then
    candidates = { "compiled", "interpret", "compare" }
  end
  for _, f in ipairs(entry.top_level_functions(vim.api.nvim_buf_get_lines(0, 0, -1, false))) do
    table.insert(candidates, f.name)
  end
  return vim.tbl_filter(function(c)
    return c:sub(1, #arglead) == arglead
  end, candidates)
end

--- Splits ":PallasRun [MODE] [ENTRY]" arguments.
local function parse_run_args(fargs, default_mode)
  local mode, name = default_mode, nil
  for _, a in ipairs(fargs) do
    if MODES[a] then
      mode = a
    else
      name = a
    end
  end
  return mode, name
end

local registered = false
function M.register()
  if registered then
    return
  end
  registered = true
  local create = vim.api.nvim_create_user_command
  create("PallasRun", function(opts)
    M.run(parse_run_args(opts.fargs, "compiled"))
  end, { nargs = "*", complete = complete_run, desc = "pallas-lsp: run an entry function [compiled|interpret|compare] [ENTRY]" })
  create("PallasCompare", function(opts)
    M.run("compare", opts.fargs[1])
  end, { nargs = "?", complete = complete_run, desc = "pallas-lsp: run compiled and interpreted and compare" })
  create("PallasMlir", M.mlir, { desc = "pallas-lsp: show the MLIR module of this file" })
  create("PallasDoctor", M.doctor, { desc = "pallas-lsp: Python, JAX and GPUs the server sees" })
end

return M

-- User commands. Runs and the doctor go to the server as
-- workspace/executeCommand ("pallas.run", "pallas.doctor"); :PallasMlir is the
-- custom "pallas/mlir" request. Results go to scratch buffers that never take
-- the focus; a failed run's frames go to the quickfix list.
local compat = require("pallas_lsp.compat")
local entry = require("pallas_lsp.entry")
local results = require("pallas_lsp.results")

local M = {}

local MODES = { compiled = true, interpret = true, compare = true }

-- The run in flight (one at a time, as the server allows):
-- { client = ..., request_id = ..., label = ... }.
M.current_run = nil

local function client_for(bufnr)
  local client = compat.clients(bufnr, require("pallas_lsp").name)[1]
  if not client then
    vim.notify("pallas-lsp: no server attached to this buffer", vim.log.levels.ERROR)
  end
  return client
end

--- Shows `text` (string or list of lines) in a read-only scratch buffer named
--- `name`, in a split at the bottom; the cursor stays where it was.
function M.scratch(name, text, filetype)
  local lines = type(text) == "table" and text or vim.split(text, "\n", { plain = true })
  local buf = vim.fn.bufnr(name)
  if buf == -1 or not vim.api.nvim_buf_is_valid(buf) then
    buf = vim.api.nvim_create_buf(false, true)
    vim.api.nvim_buf_set_name(buf, name)
  end
  vim.bo[buf].buftype = "nofile"
  vim.bo[buf].bufhidden = "hide"
  vim.bo[buf].swapfile = false
  vim.bo[buf].modifiable = true
  vim.api.nvim_buf_set_lines(buf, 0, -1, false, lines)
  vim.bo[buf].modifiable = false
  if filetype then
    vim.bo[buf].filetype = filetype
  end
  if vim.fn.bufwinid(buf) == -1 then
    local previous = vim.api.nvim_get_current_win()
    vim.cmd("botright " .. math.min(math.max(#lines, 3), 15) .. "split")
    vim.api.nvim_win_set_buf(0, buf)
    if vim.api.nvim_win_is_valid(previous) then
      vim.api.nvim_set_current_win(previous)
    end
  end
  return buf
end

--- Echoes one line without a hit-enter prompt (cut to the screen width).
function M.echo(text, highlight)
  local line = tostring(text):gsub("\n.*", "")
  local width = math.max(vim.o.columns - 12, 20)
  if #line > width then
    line = line:sub(1, width - 3) .. "..."
  end
  vim.api.nvim_echo({ { line, highlight or "None" } }, false, {})
end

--- Runs `args` ({uri, entry, mode}) through the server; what :PallasRun,
--- :PallasCompare and the code lenses (vim.lsp.commands["pallas.run"]) call.
function M.run_args(client, bufnr, args)
  if M.current_run then
    M.echo("pallas-lsp: a run is in progress (:PallasCancel stops it)", "WarningMsg")
    return
  end
  -- A run executes the project's code with its interpreter: only in a
  -- folder the user trusted (the server refuses too; this says how to trust).
  local root = client.config.root_dir
  if not require("pallas_lsp").trusted(root) then
    local line = require("pallas_lsp.trust").refusal(root, "kernels are not run in it")
    M.echo(line, "WarningMsg")
    vim.notify(line, vim.log.levels.WARN)
    return
  end
  if bufnr and vim.api.nvim_buf_is_valid(bufnr) and vim.bo[bufnr].modified then
    -- The run executes the file on disk: save the buffer first, so the run
    -- and its frames are the text on screen.
    vim.api.nvim_buf_call(bufnr, function()
      vim.cmd("silent noautocmd write")
    end)
    compat.notify(client, "textDocument/didSave", { textDocument = { uri = vim.uri_from_bufnr(bufnr) } })
  end
  local label = ("%s run of %s"):format(args.mode or "interpret", args.entry or "the entry")
  M.echo("pallas-lsp: " .. label .. " started (:PallasCancel stops it)")
  M.output = {} -- what the run prints, as it prints it (on_output)
  M.output_label = label
  local ok, request_id = compat.request(client, "workspace/executeCommand",
    { command = "pallas.run", arguments = { args } },
    function(err, result)
      M.current_run = nil
      if err then
        local cancelled = err.code == -32800
        M.echo(("pallas-lsp: %s %s"):format(label, cancelled and "cancelled" or ("failed: " .. (err.message or "?"))),
          cancelled and "WarningMsg" or "ErrorMsg")
        M.output = nil
        return
      end
      M.output = nil
      local shown = results.show(result, args, M.scratch)
      M.echo("pallas-lsp: " .. shown.summary, shown.ok and "None" or "WarningMsg")
    end, bufnr)
  if ok then
    M.current_run = { client = client, request_id = request_id, label = label }
  end
end

--- What the run in flight printed so far, shown in the run buffer as it
--- arrives (pallas/runOutput), so a long run shows its progress.
function M.on_output(text)
  if not M.current_run or not M.output then
    return
  end
  table.insert(M.output, text)
  local lines = { ("%s: running (:PallasCancel stops it)"):format(M.output_label or "run"), "", "stdout so far:" }
  for _, l in ipairs(vim.split((table.concat(M.output):gsub("\n$", "")), "\n", { plain = true })) do
    table.insert(lines, l)
  end
  M.scratch("pallas://run", lines)
end

--- The mode :PallasRun uses when none is given: compiled where a GPU (or a
--- launch template that sends runs to one) can run it, else interpret.
function M.default_mode(client)
  local status = require("pallas_lsp").status[client.id] or {}
  local settings = ((client.config.settings or {})[require("pallas_lsp").section] or {})
  local template = (settings.runner or {}).launchTemplate
  local remote = type(template) == "string" and template ~= ""
  if not remote and type(status.gpus) == "table" and #status.gpus == 0 then
    return "interpret"
  end
  return "compiled"
end

--- :PallasRun [compiled|interpret|compare] [ENTRY]
function M.run(mode, name)
  local bufnr = vim.api.nvim_get_current_buf()
  local client = client_for(bufnr)
  if not client then
    return
  end
  if name == "" then
    name = nil -- Neovim 0.7 passes "" for an omitted optional argument
  end
  mode = mode or M.default_mode(client)
  if not name then
    local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
    name = entry.enclosing(lines, vim.api.nvim_win_get_cursor(0)[1])
    if not name then
      vim.notify("pallas-lsp: put the cursor in a top-level function or name one: :PallasRun " .. mode .. " ENTRY",
        vim.log.levels.ERROR)
      return
    end
  end
  M.run_args(client, bufnr, { uri = vim.uri_from_bufnr(bufnr), entry = name, mode = mode })
end

--- :PallasCancel: cancels the run in flight. Through its progress token
--- (window/workDoneProgress/cancel) when the progress has begun: the server
--- kills the run's process group and still replies, so the run buffer says
--- "cancelled". Before that, $/cancelRequest (Neovim then drops the reply).
function M.cancel()
  local run = M.current_run
  if not run then
    M.echo("pallas-lsp: no run in progress")
    return
  end
  local tokens = require("pallas_lsp").run_tokens or {}
  local token = tokens[run.client.id]
  M.echo("pallas-lsp: cancelling the " .. run.label)
  if token ~= nil then
    compat.notify(run.client, "window/workDoneProgress/cancel", { token = token })
    return
  end
  M.current_run = nil
  if vim.fn.has("nvim-0.11") == 1 then
    run.client:cancel_request(run.request_id)
  else
    run.client.cancel_request(run.request_id)
  end
  M.echo("pallas-lsp: " .. run.label .. " cancelled", "WarningMsg")
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
        vim.notify("pallas-lsp: doctor failed: " .. (err.message or "?"), vim.log.levels.ERROR)
        return
      end
      M.scratch("pallas://doctor", type(result) == "string" and result or vim.fn.json_encode(result))
    end, bufnr)
end

local function complete_run(arglead, cmdline)
  local words = vim.split(cmdline, "%s+")
  local candidates = {}
  if #words <= 2 and words[1]:match("PallasRun") then
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
    elseif a ~= "" then
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
    -- No mode given: the one that can run here (default_mode).
    M.run(parse_run_args(opts.fargs, nil))
  end, { nargs = "*", complete = complete_run, desc = "pallas-lsp: run an entry function [compiled|interpret|compare] [ENTRY]" })
  create("PallasTrust", function()
    require("pallas_lsp").trust_current()
  end, { desc = "pallas-lsp: trust this project folder (its .venv, its python, kernel runs)" })
  create("PallasCompare", function(opts)
    M.run("compare", opts.fargs[1])
  end, { nargs = "?", complete = complete_run, desc = "pallas-lsp: run compiled and interpreted and compare" })
  create("PallasCancel", M.cancel, { desc = "pallas-lsp: cancel the run in progress" })
  create("PallasMlir", M.mlir, { desc = "pallas-lsp: show the MLIR module of this file" })
  create("PallasDoctor", M.doctor, { desc = "pallas-lsp: Python, JAX and GPUs the server sees" })
  -- Code lenses ("Run on GPU", "Run interpreted", "Compare") and code actions
  -- that run a kernel come back to the client as this command: the plugin
  -- runs them itself, so every run saves first, can be cancelled and shows
  -- its result in the same place.
  vim.lsp.commands["pallas.run"] = function(command, ctx)
    local client = vim.lsp.get_client_by_id(ctx.client_id)
    local args = (command.arguments or {})[1]
    if client and type(args) == "table" then
      local bufnr = ctx.bufnr
      if not bufnr or bufnr == 0 then
        bufnr = vim.uri_to_bufnr(args.uri)
      end
      M.run_args(client, bufnr, args)
    end
  end
end

return M

-- Issue 35, in a real (headless) Neovim with the default `setup({})`: a
-- cloned repository whose own programs (.venv/bin/pallas-lsp, .venv/bin/python,
-- the [tool.pallas-lsp] python of its pyproject.toml) each append their name
-- to a marker file when started. Opened untrusted, nothing of it runs: the
-- server is the pallas-lsp on PATH, it still reports findings (knowledge read
-- statically), :PallasRun, :PallasDoctor and :checkhealth start none of the
-- repository's programs, and the run is refused with a message that says how
-- to trust. Once trusted (:PallasTrust through Neovim's trust database on
-- 0.11; the user's trusted_folders on 0.7), the repository's pallas-lsp
-- serves it and runs use its [tool.pallas-lsp] python (issue 35, item 3).
--
--   TRUST_REPO=/tmp/repo TRUST_MARKER=/tmp/marker PATH=<dir with pallas-lsp>:$PATH \
--   nvim --headless -u NONE -i NONE -c "luafile test/editors/nvim_trust.lua"
local root = vim.env.PALLAS_LSP_ROOT or vim.fn.getcwd()
local repo = vim.env.TRUST_REPO
local marker = vim.env.TRUST_MARKER

local function out(line)
  io.stdout:write(line .. "\n")
end

local function fail(message)
  io.stderr:write("FAIL: " .. message .. "\n")
  vim.cmd("cquit 1")
end

local function wait(what, timeout, predicate)
  if not vim.wait(timeout, predicate, 50) then
    fail(("timed out after %d ms waiting for %s"):format(timeout, what))
  end
end

local function started()
  if vim.fn.filereadable(marker) == 0 then
    return {}
  end
  return vim.fn.readfile(marker)
end

local function buffer_text(name)
  local b = vim.fn.bufnr(name)
  return b == -1 and "" or table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), "\n")
end

local function main()
  assert(repo and marker, "TRUST_REPO and TRUST_MARKER must be set")
  -- As a user: no PALLAS_LSP_PYTHON (the suite sets it), the plugin on the
  -- runtimepath, the default setup.
  vim.env.PALLAS_LSP_PYTHON = nil
  vim.env.VIRTUAL_ENV = nil -- no activated environment: only the repository's .venv
  vim.opt.runtimepath:prepend(root .. "/editors/nvim")
  vim.cmd("filetype on")
  local notified = {}
  local notify = vim.notify
  vim.notify = function(msg, level)
    table.insert(notified, tostring(msg))
    return notify(msg, level)
  end
  local pallas = require("pallas_lsp")
  pallas.setup({})
  local trust = require("pallas_lsp.trust")
  local kernel = repo .. "/kernel.py"
  vim.cmd("edit " .. vim.fn.fnameescape(kernel))
  local buf = vim.api.nvim_get_current_buf()
  local compat = require("pallas_lsp.compat")
  local client
  wait("a client for the untrusted repository", 20000, function()
    client = compat.clients(buf, "pallas_lsp")[1]
    return client ~= nil and client.initialized ~= false
  end)
  local cmd = client.config.cmd
  if type(cmd) == "table" and cmd[1]:find(repo, 1, true) then
    fail("the repository's .venv/bin/pallas-lsp was started untrusted: " .. vim.inspect(cmd))
  end
  if pallas.trusted(client.config.root_dir) then
    fail("a fresh clone is trusted: " .. client.config.root_dir)
  end
  -- Findings still come (the server reads the project's JAX statically).
  wait("PLS001 in the untrusted repository", 60000, function()
    for _, d in ipairs(vim.diagnostic.get(buf)) do
      if tostring(d.code) == "PLS001" then
        return true
      end
    end
    return false
  end)
  out("ok: untrusted: the server from PATH, findings shown")

  -- A run is refused, saying how to trust.
  local commands = require("pallas_lsp.commands")
  local echoed = {}
  local echo = commands.echo
  commands.echo = function(text, hl)
    table.insert(echoed, tostring(text))
    return echo(text, hl)
  end
  vim.cmd("PallasRun interpret run")
  if commands.current_run then
    fail("a run started in an untrusted repository")
  end
  local refusal = table.concat(echoed, "\n")
  local how = trust.kind() == "config" and "trusted_folders" or ":PallasTrust"
  if not refusal:find("is not trusted", 1, true) or not refusal:find(how, 1, true) then
    fail("the refusal says how to trust (" .. how .. "): " .. refusal)
  end
  -- The server refuses too (a client that skipped the check), and says how.
  local responses = vim.lsp.buf_request_sync(buf, "workspace/executeCommand",
    { command = "pallas.run", arguments = { { uri = vim.uri_from_bufnr(buf), entry = "run", mode = "interpret" } } }, 30000)
  local refused
  for _, response in pairs(responses or {}) do
    local err = response.err or response.error -- 0.7 names it `error`
    refused = err and err.message
  end
  if not refused or not refused:find("not trusted", 1, true) or not refused:find("trust the workspace", 1, true) then
    fail("the server's refusal: " .. vim.inspect(responses))
  end
  out("ok: runs refused: " .. (refusal:gsub("\n.*", "")))

  -- The doctor and :checkhealth start nothing of the repository either.
  vim.cmd("PallasDoctor")
  wait(":PallasDoctor", 60000, function()
    return buffer_text("pallas://doctor"):find("pallas-lsp doctor", 1, true) ~= nil
  end)
  if not buffer_text("pallas://doctor"):find("not trusted", 1, true) then
    fail(":PallasDoctor says the interpreter was not inspected: " .. buffer_text("pallas://doctor"))
  end
  vim.cmd("checkhealth pallas_lsp")
  local health = table.concat(vim.api.nvim_buf_get_lines(0, 0, -1, false), "\n")
  if not health:find("is not trusted", 1, true) then
    fail(":checkhealth says the folder is not trusted: " .. health)
  end
  vim.cmd("buffer " .. buf)
  if #started() > 0 then
    fail("the repository's programs ran while it was untrusted: " .. vim.inspect(started()))
  end
  out("ok: no program of the untrusted repository ran (marker absent)")

  -- Trust it the way this Neovim keeps trust.
  if trust.kind() == "directory" then
    -- Neovim's own prompt (vim.secure.read): the user picks "allow".
    local confirm = vim.fn.confirm
    vim.fn.confirm = function()
      return 4
    end
    vim.cmd("PallasTrust")
    vim.fn.confirm = confirm
    local db = table.concat(vim.fn.readfile(vim.fn.stdpath("state") .. "/trust"), "\n")
    if not db:find("directory " .. vim.loop.fs_realpath(repo), 1, true) then
      fail("the folder is in Neovim's trust database: " .. db)
    end
  else
    -- The user's own config lists the folder.
    pallas.options.trusted_folders = { repo }
    pallas.restart_root(client.config.root_dir)
  end
  local trusted_client
  wait("the repository's own pallas-lsp serving it", 30000, function()
    trusted_client = compat.clients(buf, "pallas_lsp")[1]
    return trusted_client ~= nil and trusted_client.id ~= client.id and vim.tbl_contains(started(), "pallas-lsp")
  end)
  wait("the restarted client", 20000, function()
    return trusted_client.initialized ~= false
  end)
  out("ok: trusted: the repository's .venv/bin/pallas-lsp started")

  -- Runs now use the project's [tool.pallas-lsp] python (not python3, not
  -- the .venv's python the plugin found), and fail as JAX does.
  echoed = {}
  vim.cmd("PallasRun interpret run")
  wait("the trusted run to end", 240000, function()
    return commands.current_run == nil and buffer_text("pallas://run") ~= ""
  end)
  local run_text = buffer_text("pallas://run")
  if not run_text:find("inline_mgpu_p does not support discharge", 1, true) or run_text:find("JaxNotFound", 1, true) then
    fail("the run uses the project's python (with JAX): " .. run_text)
  end
  if not vim.tbl_contains(started(), "project-python") then
    fail("the run did not use [tool.pallas-lsp] python: " .. vim.inspect(started()))
  end
  vim.cmd("PallasDoctor")
  wait(":PallasDoctor names the project's python", 60000, function()
    return buffer_text("pallas://doctor"):find(repo .. "/tools/jaxpython", 1, true) ~= nil
  end)
  out("ok: runs and the doctor use [tool.pallas-lsp] python")

  -- Neovim 0.9/0.10 trust files only: there pyproject.toml stands for the
  -- folder (its hash). The same code path, run here.
  if vim.fn.has("nvim-0.11") == 1 then
    trust._force_kind = "file"
    local other = vim.fn.fnamemodify(repo, ":h") .. "/other-clone"
    vim.fn.mkdir(other, "p")
    vim.fn.writefile({ "[project]", 'name = "other"' }, other .. "/pyproject.toml")
    if trust.is_trusted(other) then
      fail("file trust: a new clone is trusted")
    end
    local confirm = vim.fn.confirm
    vim.fn.confirm = function()
      return 4
    end
    trust.ask(other)
    vim.fn.confirm = confirm
    if not trust.is_trusted(other) then
      fail("file trust: allowed pyproject.toml does not trust the folder")
    end
    vim.fn.writefile({ "[project]", 'name = "other"', "[tool.pallas-lsp]", 'python = "evil"' }, other .. "/pyproject.toml")
    if trust.is_trusted(other) then
      fail("file trust: an edited pyproject.toml is still trusted")
    end
    trust._force_kind = nil
    out("ok: 0.9/0.10 file trust: pyproject.toml's hash")
  end
  vim.notify = notify
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  fail(tostring(err))
end
out("PASS: neovim trust " .. tostring(vim.version().major) .. "." .. tostring(vim.version().minor))
vim.cmd("qa!")

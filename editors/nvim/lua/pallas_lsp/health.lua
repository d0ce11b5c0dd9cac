-- :checkhealth pallas_lsp: which pallas-lsp the plugin starts, its version,
-- the Python and JAX it will analyse and run kernels with, where its JAX
-- knowledge comes from, and the GPU. Everything but the binary's path comes
-- from the binary itself (`pallas-lsp version`, `pallas-lsp doctor --json`),
-- so the report says what the server will do, not what the plugin guesses.
--
-- Neovim 0.10+ reports with vim.health.start/ok/warn/error/info; 0.8-0.9 with
-- vim.health.report_*; 0.7 (Debian 12's) with the Vimscript health#report_*.
local M = {}

local function reporter()
  local h = vim.health or {}
  local function pick(new, old)
    if h[new] then
      return h[new]
    elseif h["report_" .. old] then
      return h["report_" .. old]
    end
    return function(...)
      vim.fn["health#report_" .. old](...)
    end
  end
  return {
    start = pick("start", "start"),
    ok = pick("ok", "ok"),
    warn = pick("warn", "warn"),
    error = pick("error", "error"),
    info = pick("info", "info"),
  }
end

-- Runs a command (a list, no shell); returns its output and whether it exited 0.
local function run(cmd)
  local output = vim.fn.system(cmd)
  return output, vim.v.shell_error == 0
end

local function trim(s)
  return (s or ""):gsub("^%s+", ""):gsub("%s+$", "")
end

local function str(v)
  return (v ~= nil and v ~= vim.NIL) and tostring(v) or nil
end

function M.check()
  local report = reporter()
  local plugin = require("pallas_lsp")
  local root = require("pallas_lsp.compat").find_root(vim.fn.getcwd() .. "/x", plugin.options.root_markers)
    or vim.fn.getcwd()

  report.start("pallas-lsp: the server")
  local cmd = plugin.cmd_for(root)
  local exe = cmd[1]
  local path = vim.fn.exepath(exe)
  if path == "" then
    report.error(("%q is not an executable"):format(exe), {
      "pip install pallas-lsp into the project's virtual environment (.venv) or the active $VIRTUAL_ENV",
      "or: require('pallas_lsp').setup({ cmd = '/path/to/pallas-lsp' })",
    })
    return
  end
  report.ok("binary: " .. path)
  local version, ok = run({ path, "version" })
  if not ok then
    report.error("`pallas-lsp version` failed: " .. trim(version))
    return
  end
  report.ok("version: " .. trim(version))

  -- In a folder the user has not trusted, nothing of the project runs: not
  -- its .venv's python, not its [tool.pallas-lsp] python (--isolated). An
  -- absolute python in the user's own config is the user's.
  local trusted = plugin.trusted(root)
  local python, source = plugin.python_for(root)
  -- The user's own: an absolute python option, the activated virtualenv.
  local users = source == "activated"
    or (source == "setting" and type(plugin.options.python) == "string" and plugin.options.python:sub(1, 1) == "/")
  if not trusted then
    report.warn(("project folder %s is not trusted: its own programs are not run"):format(root), {
      "trust it with " .. require("pallas_lsp.trust").how(root),
    })
    python = users and python or nil
  else
    report.ok("project folder trusted: " .. root)
  end
  local doctor_cmd = { path, "doctor", "--json" }
  if not trusted then
    table.insert(doctor_cmd, "--isolated")
  end
  if python then
    table.insert(doctor_cmd, "--python")
    table.insert(doctor_cmd, python)
  end
  local text = run(doctor_cmd) -- exits 1 when no JAX is found; the JSON says why
  local decoded, doctor = pcall(vim.fn.json_decode, text)
  if not decoded or type(doctor) ~= "table" then
    report.error("`pallas-lsp doctor --json` gave no report: " .. trim(text))
    return
  end

  report.start("pallas-lsp: runs (Python and JAX)")
  local py = doctor.python or {}
  local env = py.environment or {}
  local interpreter = str(env.executable) or str(py.interpreter) or "?"
  local from = python and "from the plugin's python option or the project's virtualenv"
    or str(py.from) or "none configured: $PALLAS_LSP_PYTHON or python3 on PATH"
  report.info(("interpreter: %s (%s)"):format(interpreter, from))
  if str(env.jax) then
    report.ok(("JAX %s (jaxlib %s), Python %s, backend %s"):format(env.jax, str(env.jaxlib) or "?",
      str(env.python) or "?", str(env.backend) or "?"))
  else
    report.warn("no JAX in this interpreter: " .. (str(env.jax_error) or str(env.error) or "unknown"), {
      "set require('pallas_lsp').setup({ python = '/path/to/venv/bin/python' }) or create the project's .venv",
    })
  end

  report.start("pallas-lsp: analysis knowledge and runner")
  local knowledge = doctor.knowledge or {}
  local tables = type(knowledge.tables) == "table" and knowledge.tables or {}
  -- What the analysis reads (may differ from the JAX runs use, above).
  if str(knowledge.source) and knowledge.source ~= "" then
    report.ok(("knowledge: JAX %s, %s (table in use: %s)"):format(str(knowledge.jax_version) or "?",
      str(knowledge.how) or "?", knowledge.source))
    if str(knowledge.fallback) and knowledge.fallback ~= "" then
      report.info("bundled table because: " .. knowledge.fallback)
    end
  elseif #tables > 0 then
    report.ok(("knowledge: bundled tables %s"):format(table.concat(tables, ", ")))
  else
    report.warn("no knowledge table found (the binary's share/pallas-lsp/knowledge, or PALLAS_LSP_KNOWLEDGE)")
  end
  if str(doctor.runner) and doctor.runner ~= "" then
    report.ok("runner: " .. doctor.runner)
  else
    report.warn("the kernel runner script was not found: runs will fail (set PALLAS_LSP_RUNNER)")
  end

  report.start("pallas-lsp: GPU")
  local gpu = doctor.gpu or {}
  local summary = str(gpu.summary) or str(gpu.status) or "unknown"
  if gpu.mosaic_gpu_capable == true then
    report.ok(summary)
  else
    report.warn(summary, { "compiled runs need an NVIDIA GPU with compute capability 9.0+; interpret mode works without one" })
  end
end

return M

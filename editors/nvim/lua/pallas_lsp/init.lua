-- pallas-lsp for Neovim: `require("pallas_lsp").setup{...}` starts the server
-- for Python buffers and adds :PallasRun, :PallasCompare, :PallasMlir and
-- :PallasDoctor. Options follow what users pass to any language server
-- (cmd, settings, on_attach, capabilities, root_markers).
--
-- Neovim 0.11+: registers the configuration with vim.lsp.config and enables it
-- (the defaults also live in lsp/pallas_lsp.lua, so `vim.lsp.enable("pallas_lsp")`
-- works without setup). Neovim 0.8-0.10: vim.lsp.start from a FileType
-- autocommand. Neovim 0.7: vim.lsp.start_client + vim.lsp.buf_attach_client,
-- one client per project root.
--
-- A project's own programs (its .venv's pallas-lsp and python, its
-- [tool.pallas-lsp] python) run only in a folder the user trusted
-- (trust.lua): :PallasTrust, or trusted_folders in setup.
local compat = require("pallas_lsp.compat")
local trust = require("pallas_lsp.trust")

local M = {}

M.name = "pallas_lsp"
M.section = "pallasLsp" -- settings section, as in the VS Code extension

local defaults = {
  cmd = nil, -- string or list; default: pallas-lsp from the active virtualenv, the project's .venv, or PATH
  python = nil, -- interpreter whose JAX is analysed; default: $VIRTUAL_ENV's, else the project's .venv
  filetypes = { "python" },
  root_markers = { "pyproject.toml", ".git" },
  settings = {}, -- the pallasLsp section (or { pallasLsp = {...} }): logLevel, select, ignore, runner
  init_options = nil, -- extra initializationOptions, merged over the settings
  on_attach = nil,
  capabilities = nil,
  handlers = nil,
  codelens = true, -- refresh code lenses ("Run on GPU", ...) when the server offers them
  log_level = nil, -- shorthand for settings.logLevel
  -- Folders (and everything below them) whose own programs may run: their
  -- .venv's pallas-lsp and python, [tool.pallas-lsp] python, kernel runs.
  -- Neovim 0.9+ also keeps what :PallasTrust allowed (trust.lua).
  trusted_folders = {},
}

M.options = vim.deepcopy(defaults)
M.status = {} -- client id -> last pallas/status params

local function venv_file(dir, name)
  if dir and dir ~= "" then
    local path = dir .. "/bin/" .. name
    if compat.is_executable(path) then
      return path
    end
  end
  return nil
end

--- `path` made absolute against the project root (the README's
--- `python = ".venv/bin/python"` means the project's, not the one of the
--- folder Neovim was started in).
function M.resolve(path, root)
  if type(path) ~= "string" or path == "" then
    return path
  end
  path = vim.fn.expand(path)
  if path:sub(1, 1) == "/" or not root then
    return path
  end
  return root .. "/" .. path:gsub("^%./", "")
end

--- The Python interpreter for a project root (nil: let the server decide),
--- and where it came from: "setting" (the python option), "activated" (the
--- virtualenv the user activated: $VIRTUAL_ENV) or "detected" (the
--- project's .venv). The server reads its environment's JAX; it starts it
--- only in a trusted folder (the client says workspaceTrusted).
function M.python_for(root)
  if M.options.python then
    return M.resolve(M.options.python, root), "setting"
  end
  local activated = venv_file(vim.env.VIRTUAL_ENV, "python")
  if activated then
    return activated, "activated"
  end
  local found = root and venv_file(root .. "/.venv", "python")
  return found, found and "detected" or nil
end

--- Whether the project at `root` may run its own programs.
function M.trusted(root)
  return trust.is_trusted(root)
end

--- The command that starts the server for a project root: `cmd` from the
--- user's config, else the pallas-lsp of the virtualenv the user activated
--- ($VIRTUAL_ENV, the user's own environment like PATH), else, in a trusted
--- folder only, the project's .venv's, else pallas-lsp on PATH.
function M.cmd_for(root)
  local cmd = M.options.cmd
  if type(cmd) == "string" then
    return { cmd, "serve", "--stdio" }
  elseif type(cmd) == "table" then
    return cmd
  end
  local exe = venv_file(vim.env.VIRTUAL_ENV, "pallas-lsp")
  if not exe and root and M.trusted(root) then
    exe = venv_file(root .. "/.venv", "pallas-lsp")
  end
  return { exe or "pallas-lsp", "serve", "--stdio" }
end

--- The settings the server receives (see docs/editors.md).
function M.server_settings(root)
  local user = M.options.settings or {}
  if user[M.section] then
    user = user[M.section]
  end
  local python, source = M.python_for(root)
  local merged = vim.tbl_deep_extend("force", {
    python = python or vim.NIL,
    -- "setting": the user named it; "detected": found here, and the
    -- project's [tool.pallas-lsp] python comes first (as in `check`).
    pythonSource = source or "none",
    logLevel = M.options.log_level or "info",
    select = {},
    ignore = {},
    runner = { launchTemplate = vim.NIL, timeoutSeconds = 300 },
  }, user)
  if type(user.python) == "string" then
    merged.pythonSource = "setting"
  end
  if type(merged.python) == "string" then
    merged.python = M.resolve(merged.python, root)
  end
  -- Never from the settings table: whether the folder is trusted is the
  -- user's decision (trust.lua), not a value a project could set.
  merged.workspaceTrusted = M.trusted(root)
  -- The plugin shows a run's result in its run buffer: the server need not
  -- repeat it as a message.
  merged.runner = vim.tbl_extend("force", merged.runner or {}, { clientShowsResults = true })
  return merged
end

--- $/progress: Neovim's own handler (0.7 only stores it; 0.10+ feeds
--- vim.lsp.status), then one echoed line, so a run's progress shows on every
--- version without a hit-enter prompt.
function M.progress_handler(err, result, ctx, config)
  local default = vim.lsp.handlers["$/progress"]
  if default then
    pcall(default, err, result, ctx, config)
  end
  local value = type(result) == "table" and result.value or nil
  if type(value) ~= "table" then
    return
  end
  M.progress = M.progress or {}
  local key = tostring(ctx.client_id) .. ":" .. tostring(result.token)
  M.run_tokens = M.run_tokens or {}
  if value.kind == "begin" then
    M.progress[key] = value.title or "pallas-lsp"
    -- A run's progress ("Pallas: compare run of f"): :PallasCancel cancels
    -- it through this token, and the run still replies (status cancelled).
    if (value.title or ""):find("^Pallas: ") and value.cancellable then
      M.run_tokens[ctx.client_id] = result.token
    end
  elseif value.kind == "end" and M.run_tokens[ctx.client_id] == result.token then
    M.run_tokens[ctx.client_id] = nil
  end
  local title = M.progress[key] or "pallas-lsp"
  local text = title
  if value.kind == "end" then
    M.progress[key] = nil
    text = text .. ": " .. (value.message or "done")
  elseif value.message then
    text = text .. ": " .. value.message
  end
  if type(value.percentage) == "number" then
    text = text .. (" (%d%%)"):format(value.percentage)
  end
  require("pallas_lsp.commands").echo(text)
end

--- Virtual text shows a diagnostic's first line (its headline, at most 100
--- characters: the server puts the details after it). Set for the client's
--- namespaces only, and only where virtual text is on (0.11 turns it off by
--- default): the user's own `format` still applies to the headline.
function M.configure_virtual_text(client_id)
  local global = vim.diagnostic.config().virtual_text
  if not global then
    return
  end
  local opts = type(global) == "table" and vim.deepcopy(global) or {}
  local theirs = opts.format
  opts.format = function(d)
    local headline = (d.message or ""):gsub("\n.*", "")
    if theirs then
      return theirs(vim.tbl_extend("force", d, { message = headline }))
    end
    return headline
  end
  for _, pull in ipairs({ false, true }) do
    local ok, ns = pcall(vim.lsp.diagnostic.get_namespace, client_id, pull)
    if ok and type(ns) == "number" then
      vim.diagnostic.config({ virtual_text = opts }, ns)
    end
  end
end

local function on_attach(client, bufnr)
  M.configure_virtual_text(client.id)
  local caps = client.server_capabilities or {}
  if M.options.codelens and caps.codeLensProvider then
    local group = vim.api.nvim_create_augroup("pallas_lsp_codelens_" .. bufnr, { clear = true })
    vim.api.nvim_create_autocmd({ "BufEnter", "InsertLeave", "BufWritePost" }, {
      group = group,
      buffer = bufnr,
      callback = function()
        pcall(vim.lsp.codelens.refresh)
      end,
    })
    pcall(vim.lsp.codelens.refresh)
  end
  if M.options.on_attach then
    M.options.on_attach(client, bufnr)
  end
end

--- The client configuration for a project root (root may be nil on 0.11, where
--- vim.lsp.config resolves it from root_markers).
function M.client_config(root)
  local settings = M.server_settings(root)
  local handlers = vim.tbl_extend("force", {
    ["pallas/status"] = function(_, result, ctx)
      M.status[ctx.client_id] = result
    end,
    ["$/progress"] = M.progress_handler,
    -- What a run prints, as it prints it (the run buffer shows it live).
    ["pallas/runOutput"] = function(_, result)
      if type(result) == "table" and type(result.text) == "string" then
        require("pallas_lsp.commands").on_output(result.text)
      end
    end,
  }, M.options.handlers or {})
  return {
    name = M.name,
    cmd = M.cmd_for(root),
    root_dir = root,
    filetypes = M.options.filetypes,
    root_markers = M.options.root_markers,
    init_options = vim.tbl_deep_extend("force", settings, M.options.init_options or {}),
    -- The server asks workspace/configuration for section "pallas-lsp"; the
    -- same table under our settings name serves clients that use that one.
    settings = { [M.section] = settings, ["pallas-lsp"] = settings },
    capabilities = M.options.capabilities,
    handlers = handlers,
    on_attach = on_attach,
    before_init = function(params, config)
      -- On 0.11 the root is known only now: fill in whether it is trusted
      -- and that project's interpreter, in the initializationOptions and in
      -- both settings sections the client answers workspace/configuration
      -- with (on 0.11 they are separate copies).
      local root_dir = config.root_dir
      local init = params.initializationOptions
      if type(init) ~= "table" then
        return
      end
      local function set(key, value)
        init[key] = value
        for _, section in ipairs({ M.section, "pallas-lsp" }) do
          if type(config.settings) == "table" and type(config.settings[section]) == "table" then
            config.settings[section][key] = value
          end
        end
      end
      set("workspaceTrusted", M.trusted(root_dir))
      if not root_dir then
        return
      end
      if type(init.python) == "string" and init.python:sub(1, 1) ~= "/" then
        set("python", M.resolve(init.python, root_dir))
      elseif init.python == vim.NIL then
        local python, source = M.python_for(root_dir)
        if python then
          set("python", python)
          set("pythonSource", source)
        end
      end
    end,
  }
end

local warned_missing = false
local function check_executable(cmd, root)
  if compat.is_executable(cmd[1]) then
    return true
  end
  if not warned_missing then
    warned_missing = true
    local project = root and venv_file(root .. "/.venv", "pallas-lsp")
    if project and not M.trusted(root) then
      vim.notify(trust.refusal(root, "its .venv's pallas-lsp is not started (and none is on PATH)"),
        vim.log.levels.WARN)
    else
      vim.notify(
        ("pallas-lsp: %q is not executable. Install pallas-lsp into your virtualenv "
          .. "or pass setup{ cmd = '/path/to/pallas-lsp' }."):format(cmd[1]),
        vim.log.levels.ERROR
      )
    end
  end
  return false
end

--- The command for 0.11's vim.lsp.config, where the root is known only when
--- a client starts: a function that picks the command for that root (a
--- project's .venv/bin/pallas-lsp only when the folder is trusted).
function M.cmd_function()
  return function(dispatchers, config)
    local root = config and config.root_dir or vim.fn.getcwd()
    local cmd = M.cmd_for(root)
    return vim.lsp.rpc.start(cmd, dispatchers, {
      cwd = config and config.cmd_cwd or nil,
      env = config and config.cmd_env or nil,
    })
  end
end

local clients_by_root = {} -- Neovim 0.7: root -> client id

--- Starts (or reuses) the client for `bufnr` and attaches it (0.7-0.10 paths).
function M.attach(bufnr)
  bufnr = (bufnr == nil or bufnr == 0) and vim.api.nvim_get_current_buf() or bufnr
  if vim.bo[bufnr].buftype ~= "" then
    return nil
  end
  local fname = vim.api.nvim_buf_get_name(bufnr)
  if fname == "" then
    return nil
  end
  local root = compat.find_root(fname, M.options.root_markers) or vim.fn.fnamemodify(fname, ":p:h")
  local config = M.client_config(root)
  if not check_executable(config.cmd, root) then
    return nil
  end
  if compat.has_lsp_start then
    return vim.lsp.start(config, { bufnr = bufnr })
  end
  local id = clients_by_root[root]
  if not id or vim.lsp.client_is_stopped(id) then
    id = vim.lsp.start_client(config)
    clients_by_root[root] = id
  end
  if id then
    vim.lsp.buf_attach_client(bufnr, id)
  end
  return id
end

function M.setup(opts)
  M.options = vim.tbl_deep_extend("force", vim.deepcopy(defaults), opts or {})
  -- Functions and lists are replaced, not merged, so take them as given.
  for _, key in ipairs({ "cmd", "filetypes", "root_markers", "on_attach" }) do
    if opts and opts[key] ~= nil then
      M.options[key] = opts[key]
    end
  end
  require("pallas_lsp.commands").register()

  if compat.has_lsp_config then
    local config = M.client_config(nil)
    config.root_dir = nil -- resolved per buffer from root_markers
    -- The command is chosen per root when a client starts (cmd_function);
    -- one that cannot start is said once, here.
    if not check_executable(M.cmd_for(vim.fn.getcwd()), vim.fn.getcwd()) then
      return
    end
    config.cmd = M.cmd_function()
    vim.lsp.config(M.name, config)
    vim.lsp.enable(M.name)
    return
  end

  local group = vim.api.nvim_create_augroup("pallas_lsp", { clear = true })
  vim.api.nvim_create_autocmd("FileType", {
    group = group,
    pattern = M.options.filetypes,
    callback = function(args)
      M.attach(args.buf)
    end,
  })
  -- Buffers opened before setup ran.
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(M.options.filetypes, vim.bo[buf].filetype) then
      M.attach(buf)
    end
  end
end

--- The project root of a buffer (what its client's root_dir is).
function M.root_of(bufnr)
  local fname = vim.api.nvim_buf_get_name(bufnr)
  if fname == "" then
    return nil
  end
  return compat.find_root(fname, M.options.root_markers) or vim.fn.fnamemodify(fname, ":p:h")
end

--- Starts the servers of `root` again (after :PallasTrust): the project's
--- own pallas-lsp and python are used from now on.
function M.restart_root(root)
  local stopping = {}
  for _, client in ipairs(compat.all_clients(M.name)) do
    if client.config.root_dir == root then
      table.insert(stopping, client)
      compat.stop(client)
    end
  end
  vim.wait(5000, function()
    for _, client in ipairs(stopping) do
      if not compat.is_stopped(client) then
        return false
      end
    end
    return true
  end, 50)
  clients_by_root[root] = nil
  for _, buf in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(buf) and vim.tbl_contains(M.options.filetypes, vim.bo[buf].filetype)
      and M.root_of(buf) == root then
      if compat.has_lsp_config then
        -- What vim.lsp.enable starts, for this root (its command and trust
        -- are chosen when the client starts: cmd_function, before_init).
        local config = vim.deepcopy(vim.lsp.config[M.name])
        config.root_dir = root
        vim.lsp.start(config, { bufnr = buf })
      else
        M.attach(buf)
      end
    end
  end
end

--- :PallasTrust: trusts the current buffer's project folder (Neovim's trust
--- database on 0.9+, which asks; trust.lua) and restarts its server in full
--- mode.
function M.trust_current()
  local root = M.root_of(vim.api.nvim_get_current_buf())
  if not root then
    vim.notify("pallas-lsp: this buffer has no file, so no project folder to trust", vim.log.levels.WARN)
    return false
  end
  if M.trusted(root) then
    require("pallas_lsp.commands").echo("pallas-lsp: " .. root .. " is trusted already")
    return true
  end
  if not trust.ask(root) then
    require("pallas_lsp.commands").echo("pallas-lsp: " .. root .. " stays untrusted", "WarningMsg")
    return false
  end
  require("pallas_lsp.commands").echo("pallas-lsp: " .. root .. " trusted; restarting its server")
  M.restart_root(root)
  return true
end

--- What runs will use, in a few words, from pallas/status's `runs` (nil
--- when they use the JAX the analysis reads, which then says it for both).
function M.runs_words(status)
  local runs = type(status.runs) == "table" and status.runs or nil
  local analysis = type(status.analysis) == "table" and status.analysis or {}
  if not runs then
    return nil
  end
  local analysed = analysis.jaxVersion ~= vim.NIL and analysis.jaxVersion or status.jaxVersion
  if runs.state == "ready" then
    if runs.jaxVersion ~= vim.NIL and runs.jaxVersion ~= analysed then
      return "runs JAX " .. tostring(runs.jaxVersion)
    end
    return nil
  elseif runs.state == "no-jax" then
    return "runs: no JAX"
  elseif runs.state == "template" then
    return "runs via " .. (type(runs.via) == "string" and runs.via or "template")
  elseif runs.state == "refused" then
    return "runs off"
  end
  return nil
end

--- A short status for statuslines: "pallas · JAX 0.10.2 · no GPU", or, when
--- runs would not use that JAX, both apart: "pallas · analysis JAX 0.10.2 ·
--- runs: no JAX · no GPU".
function M.statusline(bufnr)
  local client = compat.clients(bufnr or 0, M.name)[1]
  if not client then
    return ""
  end
  local status = M.status[client.id] or {}
  local parts = { "pallas" }
  local runs = M.runs_words(status)
  if status.jaxVersion and status.jaxVersion ~= vim.NIL then
    table.insert(parts, (runs and "analysis JAX " or "JAX ") .. status.jaxVersion)
  end
  if runs then
    table.insert(parts, runs)
  end
  -- The GPU's name, or "no GPU" (never the probe's own words, such as a
  -- dlopen error: :PallasDoctor shows those).
  if type(status.gpus) == "table" then
    table.insert(parts, #status.gpus == 0 and "no GPU" or (status.gpus[1].name or "GPU"))
  elseif type(status.gpu) == "string" then
    table.insert(parts, #status.gpu <= 40 and status.gpu or "no GPU")
  end
  return table.concat(parts, " · ")
end

return M

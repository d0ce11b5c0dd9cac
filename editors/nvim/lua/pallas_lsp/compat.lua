-- Differences between the Neovim versions the plugin supports (0.7 to 0.11+),
-- kept here so the rest of the plugin reads as if there were one API.
local M = {}

local function has(feature)
  return vim.fn.has(feature) == 1
end

M.has_lsp_start = has("nvim-0.8") and vim.lsp.start ~= nil
-- 0.11 reads configurations from `lsp/<name>.lua` on the runtimepath and starts
-- them for matching buffers after `vim.lsp.enable`.
M.has_lsp_config = has("nvim-0.11") and type(vim.lsp.config) ~= "nil" and vim.lsp.enable ~= nil
-- 0.11 made client functions methods (`client:request`); the old field form is
-- deprecated there, and in 0.7 the fields are closures that take no self.
local method_calls = has("nvim-0.11")

function M.request(client, method, params, handler, bufnr)
  if method_calls then
    return client:request(method, params, handler, bufnr)
  end
  return client.request(method, params, handler, bufnr)
end

function M.notify(client, method, params)
  if method_calls then
    return client:notify(method, params)
  end
  return client.notify(method, params)
end

function M.stop(client)
  if method_calls then
    return client:stop()
  end
  return client.stop()
end

function M.is_stopped(client)
  if method_calls then
    return client:is_stopped()
  end
  return client.is_stopped()
end

--- Every running client with the given name.
function M.all_clients(name)
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ name = name })
  end
  return vim.tbl_filter(function(c)
    return c.name == name
  end, vim.lsp.get_active_clients())
end

--- Clients attached to `bufnr` with the given name.
function M.clients(bufnr, name)
  local out = {}
  if vim.lsp.get_clients then
    return vim.lsp.get_clients({ bufnr = bufnr, name = name })
  end
  for _, client in pairs(vim.lsp.buf_get_clients(bufnr)) do
    if client.name == name then
      table.insert(out, client)
    end
  end
  return out
end

--- A directory above `path` (inclusive) that contains one of `markers`.
function M.find_root(path, markers)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  while true do
    for _, marker in ipairs(markers) do
      if vim.loop.fs_stat(dir .. "/" .. marker) then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      return nil
    end
    dir = parent
  end
end

function M.is_executable(path)
  return path ~= nil and path ~= "" and vim.fn.executable(path) == 1
end

return M

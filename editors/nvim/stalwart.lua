-- Stalwart in Neovim 0.7 and later: rulebooks and agent descriptions get their filetypes, and
-- `stalwart lsp` serves them (diagnostics as you type, go to definition, references, hover,
-- completion, rename, code actions, proof findings on save), and scenario files (a hover on a step
-- shows what the check answers there and where it was decided).
--
-- Put this file on your 'runtimepath' as lua/stalwart.lua (or anywhere on package.path) and call
--
--   require('stalwart').setup()                                   -- `stalwart` on $PATH
--   require('stalwart').setup({ cmd = { '/path/to/stalwart', 'lsp' } })
--
-- Options: cmd, on_attach, capabilities, handlers, init_options (passed to
-- vim.lsp.start_client), root_dir (a function from a file's path to its workspace folder; by
-- default the nearest folder above holding agent.yaml, else config.yml, else .git, else the
-- file's own folder).

local M = {}

-- Files the server reads, by name pattern (Lua patterns on the file's name).
local RULEBOOK = { '%.co$' }
local SERVED = { '%.co$', '%.csv$', '%.rules%.ya?ml$', '^agent%.ya?ml$', '%.agent%.ya?ml$' }

local function matches(name, patterns)
  for _, p in ipairs(patterns) do
    if name:match(p) then
      return true
    end
  end
  return false
end

-- A scenario file (docs/scenarios.md): YAML whose top level has `steps:` and names `agent:` or
-- `record:`; the server runs it for hovers and diagnostics.
local function is_scenario(name, buf)
  if not (name:match('%.ya?ml$')) then
    return false
  end
  local steps, agent = false, false
  for _, line in ipairs(vim.api.nvim_buf_get_lines(buf, 0, 400, false)) do
    if line:match('^steps:') then
      steps = true
    elseif line:match('^agent:') or line:match('^record:') then
      agent = true
    end
  end
  return steps and agent
end

local function default_root(path)
  local dir = vim.fn.fnamemodify(path, ':p:h')
  for _, marker in ipairs({ 'agent.yaml', 'agent.yml', 'config.yml', 'config.yaml' }) do
    local found = vim.fn.findfile(marker, dir .. ';')
    if found ~= '' then
      return vim.fn.fnamemodify(found, ':p:h')
    end
  end
  local git = vim.fn.finddir('.git', dir .. ';')
  if git ~= '' then
    return vim.fn.fnamemodify(git, ':p:h:h')
  end
  return dir
end

-- One client per workspace folder.
local clients = {}

local function attach(opts, buf)
  local path = vim.api.nvim_buf_get_name(buf)
  if path == '' then
    return
  end
  local root = (opts.root_dir or default_root)(path)
  local id = clients[root]
  if id == nil or vim.lsp.get_client_by_id(id) == nil then
    id = vim.lsp.start_client({
      name = 'stalwart',
      cmd = opts.cmd or { 'stalwart', 'lsp' },
      root_dir = root,
      on_attach = opts.on_attach,
      capabilities = opts.capabilities,
      handlers = opts.handlers,
      init_options = opts.init_options,
    })
    if id == nil then
      return
    end
    clients[root] = id
  end
  vim.lsp.buf_attach_client(buf, id)
end

function M.setup(opts)
  opts = opts or {}
  local group = vim.api.nvim_create_augroup('stalwart', { clear = true })
  vim.api.nvim_create_autocmd({ 'BufRead', 'BufNewFile' }, {
    group = group,
    pattern = '*',
    callback = function(args)
      local name = vim.fn.fnamemodify(args.file, ':t')
      if matches(name, RULEBOOK) then
        vim.bo[args.buf].filetype = 'colang'
      end
      if matches(name, SERVED) or is_scenario(name, args.buf) then
        attach(opts, args.buf)
      end
    end,
  })
end

return M

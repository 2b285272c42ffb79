-- The editor scenario in headless Neovim, through editors/nvim/stalwart.lua and `stalwart lsp`:
-- open a broken .co and agent.yaml, read the diagnostics, fix the file with an edit, read the
-- cleared set, ask for definitions across files, hover on a scenario's decision. Writes what it
-- saw as JSON to $STALWART_OUT
-- (tests/lsp/run compares it with tests/lsp/expected.json); exits 1 on a timeout.
--
--   STALWART_REPO=… STALWART_BIN=… STALWART_WORKSPACE=… STALWART_OUT=… \
--     nvim --headless -n -i NONE --noplugin -u tests/lsp/nvim/scenario.lua

local repo = os.getenv('STALWART_REPO')
local bin = os.getenv('STALWART_BIN')
local ws = os.getenv('STALWART_WORKSPACE')
local out = os.getenv('STALWART_OUT')
package.path = repo .. '/editors/nvim/?.lua;' .. package.path

local TIMEOUT = 60000

local function fail(why)
  io.stderr:write('nvim scenario: ' .. why .. '\n')
  vim.cmd('cquit 1')
end

-- The latest diagnostics published for each file, by file name.
local latest = {}
local function capture(err, result, ctx, config)
  local name = vim.fn.fnamemodify(vim.uri_to_fname(result.uri), ':t')
  latest[name] = result.diagnostics
  vim.lsp.handlers['textDocument/publishDiagnostics'](err, result, ctx, config)
end

require('stalwart').setup({
  cmd = { bin, 'lsp' },
  handlers = { ['textDocument/publishDiagnostics'] = capture },
})

local function compact(list)
  local rows = {}
  for _, d in ipairs(list or {}) do
    local r = d.range
    table.insert(rows, {
      code = d.code,
      range = { r.start.line, r.start.character, r['end'].line, r['end'].character },
    })
  end
  return rows
end

local function location(result)
  local rows = {}
  for _, l in ipairs(result or {}) do
    local r = l.range
    table.insert(rows, {
      file = vim.fn.fnamemodify(vim.uri_to_fname(l.uri), ':t'),
      range = { r.start.line, r.start.character, r['end'].line, r['end'].character },
    })
  end
  return rows
end

local function definition(buf, line, character)
  local params = {
    textDocument = { uri = vim.uri_from_bufnr(buf) },
    position = { line = line, character = character },
  }
  local answers = vim.lsp.buf_request_sync(buf, 'textDocument/definition', params, TIMEOUT)
  for _, a in pairs(answers or {}) do
    if a.result then
      return location(a.result)
    end
  end
  return {}
end

vim.cmd('edit ' .. ws .. '/agent.yaml')
local agent = vim.api.nvim_get_current_buf()
vim.cmd('edit ' .. ws .. '/policy.co')
local policy = vim.api.nvim_get_current_buf()
if vim.bo[policy].filetype ~= 'colang' then
  fail('policy.co has filetype ' .. vim.bo[policy].filetype)
end

local transcript = {}
if not vim.wait(TIMEOUT, function() return latest['policy.co'] ~= nil and #latest['policy.co'] > 0 end, 20) then
  fail('no diagnostics for policy.co')
end
transcript.opened = { ['policy.co'] = compact(latest['policy.co']), ['agent.yaml'] = compact(latest['agent.yaml']) }

-- `execute refund_crd` → `execute refund_card`: one incremental change.
vim.api.nvim_buf_set_text(policy, 7, 12, 7, 22, { 'refund_card' })
if not vim.wait(TIMEOUT, function() return #latest['policy.co'] == 0 end, 20) then
  fail('the fix did not clear policy.co')
end
transcript.fixed = { ['policy.co'] = compact(latest['policy.co']) }

transcript.definitions = {
  ['agent.yaml:4:26'] = definition(agent, 4, 26),
  ['policy.co:7:15'] = definition(policy, 7, 15),
  ['policy.co:5:8'] = definition(policy, 5, 8),
}

-- A scenario file: a hover on its `decision:` says what the check answers (the rulebook's buffer
-- as fixed above) and where it was decided; go to definition goes there.
vim.cmd('edit ' .. ws .. '/refunds.scenario.yaml')
local scenario = vim.api.nvim_get_current_buf()
if not vim.wait(TIMEOUT, function() return #vim.lsp.get_active_clients({ bufnr = scenario }) > 0 end, 20) then
  fail('the scenario file was not attached')
end
local hover = {}
local answers = vim.lsp.buf_request_sync(scenario, 'textDocument/hover', {
  textDocument = { uri = vim.uri_from_bufnr(scenario) },
  position = { line = 9, character = 8 },
}, TIMEOUT)
for _, a in pairs(answers or {}) do
  if a.result then
    local parts = vim.split(a.result.contents.value, '\n\n', { plain = true })
    hover = { parts[1], parts[2], parts[3] }
  end
end
transcript.scenario = { hover = hover, definition = definition(scenario, 9, 8) }

local file = io.open(out, 'w')
file:write(vim.fn.json_encode(transcript))
file:close()
vim.lsp.stop_client(vim.lsp.get_active_clients())
vim.wait(5000, function() return #vim.lsp.get_active_clients() == 0 end, 20)
vim.cmd('qall!')

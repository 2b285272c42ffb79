"""Writes `<folder>.expected.json` for each NeMo config folder here: the facts NeMo Guardrails'
own loader (`RailsConfig.from_path`) reports for it — its Colang version, the examples of every
user message, the utterances of every bot message, and the ids of its flows (1.0) or the names
of its flows (2.x).

    python reference_facts.py        # with nemoguardrails 0.24.1 installed (it parses offline)
"""

import json
import pathlib
import sys

from nemoguardrails import RailsConfig

here = pathlib.Path(__file__).parent
for folder in sorted(p for p in here.iterdir() if p.is_dir()):
    config = RailsConfig.from_path(str(folder))
    flows = []
    for f in config.flows:
        name = f.get("id") if isinstance(f, dict) else getattr(f, "name", None)
        if name is not None and name not in flows:
            flows.append(name)
    facts = {
        "version": config.colang_version,
        "user_messages": config.user_messages,
        "bot_messages": config.bot_messages,
        "flows": sorted(flows),
    }
    out = here / f"{folder.name}.expected.json"
    out.write_text(json.dumps(facts, indent=2, sort_keys=True, ensure_ascii=False) + "\n")
    print(f"{folder.name}: {len(flows)} flows", file=sys.stderr)

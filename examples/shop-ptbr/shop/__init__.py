"""The shop's tools, declared for Stalwart in `shop.tools`."""

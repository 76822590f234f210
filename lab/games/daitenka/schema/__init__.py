"""大天下's input tables — bot tables, card and deck files, ``lab play`` replay files — declared
with the lab's schema helpers (``lab.schema.base``), one-line errors naming file and key."""

"""The page a figure is drawn for: the width of the book's text column.

Its own module, below both :mod:`.style` (the rcParams drawn at this width) and :mod:`.phone`
(the phone rendering, at most this wide), so neither imports the other for it.
"""

#: Width of the book's text column in inches (688 CSS px at 100 px per inch).
BOOK_WIDTH = 6.88

"""Words that are never an entity on their own: capitalized only because they start a sentence or a heading."""

from __future__ import annotations

STOPWORDS = {
    "a", "an", "the", "in", "on", "at", "its", "it", "this", "that", "these", "those", "both", "each", "soon",
    "after", "before", "during", "when", "while", "for", "from", "by", "with", "his", "her", "their", "our",
    "some", "many", "all", "every", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
    "ten", "first", "second", "third", "later", "then", "there", "here", "however", "also", "as", "if", "but",
    "and", "or", "so", "to", "of", "crews", "chapter", "he", "she", "they", "we", "you", "i", "my", "mr",
    "mrs", "ms", "dr", "sir", "what", "who", "why", "how", "where", "which", "yes", "no", "not", "now",
    "today", "paragraph", "sentence", "section", "part", "page", "note", "notes", "see", "according", "since",
    "until", "under", "over", "into", "onto", "than", "because", "although", "though", "most", "more",
    "other", "another", "such", "only", "just", "even", "still", "again", "once", "oh", "well", "let",
    "said", "says", "upon", "about", "above", "below", "between", "within", "without", "through",
}

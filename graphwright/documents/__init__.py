"""Reading files into documents: the file types and their readers (PDF, Word, HTML, text, JSON), each file read in
a child process with a time and memory budget, tables as passages, OCR of scanned pages, what a document is
about (its profile), and chunks with their content-addressed ids. Knows nothing of entities: that is
`extraction/`."""

"""Search modes. Each retriever lives in its own module and returns ranked RetrievedChunk lists."""

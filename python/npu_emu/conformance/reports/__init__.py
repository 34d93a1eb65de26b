"""The three report formats (JSON, JUnit XML, Markdown) and the totals they share."""

package releasepath

// FactsAnalyzer is the analyzer that exports the summaries, for its own test.
var FactsAnalyzer = factsAnalyzer

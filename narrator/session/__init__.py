"""The one game loop's verbs (`session.Session`) and the journal it keeps (`journal`)."""

// Add to Notes' preprocessing file: what a browser runs in the page before the compose
// sheet opens. It hands the extension the page's title, its address and the text the user
// selected, which the note files with what the user writes.
var NotesPage = function() {};

NotesPage.prototype = {
    run: function(parameters) {
        parameters.completionFunction({
            "title": document.title,
            "URL": document.URL,
            "selection": String(window.getSelection())
        });
    }
};

var ExtensionPreprocessingJS = new NotesPage;

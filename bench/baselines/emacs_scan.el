;;; emacs_scan.el --- Baseline: what a cron `emacs --batch' script does  -*- lexical-binding: t; -*-
;; emacs --batch -Q -l bench/baselines/emacs_scan.el TREE
;; Reads every .org file (decoding it, as Emacs does) and searches its headline
;; lines for @agent; prints how many files have one.
(let ((hits 0)
      (case-fold-search t))
  (dolist (file (directory-files-recursively (car command-line-args-left) "\\.org\\'"))
    (with-temp-buffer
      (insert-file-contents file)
      (goto-char (point-min))
      (when (re-search-forward "^\\*+ .*@agent\\_>" nil t)
        (setq hits (1+ hits)))))
  (setq command-line-args-left nil)
  (princ (format "%d\n" hits)))

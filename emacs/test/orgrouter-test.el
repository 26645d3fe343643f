;;; orgrouter-test.el --- ERT tests for orgrouter.el, against the real program  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run by tests/emacs/test_ert.py:
;;   ORGROUTER_TEST_EXECUTABLE=/path/to/orgrouter emacs --batch -Q -L emacs \
;;     -l emacs/test/orgrouter-test.el -f ert-run-tests-batch-and-exit
;; Every test runs the real orgrouter; none fakes it.

;;; Code:

(require 'ert)
(require 'org)
(require 'json)
(require 'orgrouter)

(defvar orgrouter-test-executable
  (or (getenv "ORGROUTER_TEST_EXECUTABLE") "orgrouter"))

(defconst orgrouter-test-request-text
  "#+TITLE: Groceries\n\n* Notes\nsome text to keep\nmore text, café ☕\n\n* @agent create a todo to buy milk\n")

(defconst orgrouter-test-plain-text
  "#+TITLE: Plain\n\n* Notes\nnothing addressed to anyone here\n")

(defvar orgrouter-test--statuses nil
  "Statuses `orgrouter-after-route-hook' reported, most recent first.")

(defun orgrouter-test--record (_buffer status)
  "Remember STATUS."
  (push status orgrouter-test--statuses))

(defun orgrouter-test--route-available-p ()
  "Return non-nil when the program has a `route' command with --stdin."
  (with-temp-buffer
    (and (eq 0 (call-process orgrouter-test-executable nil t nil "route" "--help"))
         (progn (goto-char (point-min)) (search-forward "--stdin" nil t)))))

(defun orgrouter-test--wait-for (predicate)
  "Wait up to 60 seconds for PREDICATE to return non-nil; fail if it never does."
  (let ((deadline (+ (float-time) 60)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (should (funcall predicate))))

(defun orgrouter-test--expected-output (text file)
  "Return what `orgrouter route --stdin --file-name FILE' prints for TEXT."
  (with-temp-buffer
    (insert text)
    (let ((coding-system-for-read 'utf-8-unix)
          (coding-system-for-write 'utf-8-unix))
      (should (eq 0 (call-process-region (point-min) (point-max) orgrouter-test-executable
                                         t '(t nil) nil
                                         "route" "--stdin" "--file-name" file))))
    (buffer-string)))

(defmacro orgrouter-test--with-org-buffer (text &rest body)
  "Run BODY in a fresh Org buffer holding TEXT, visiting no file, in a temp dir."
  (declare (indent 1) (debug t))
  `(let* ((default-directory (file-name-as-directory (make-temp-file "orgrouter-ert" t)))
          (process-environment
           (append (list "ORGROUTER_NOW=2026-11-30T09:00"
                         (concat "XDG_STATE_HOME=" default-directory "state")
                         (concat "XDG_CONFIG_HOME=" default-directory "config"))
                   process-environment))
          (orgrouter-executable orgrouter-test-executable)
          (orgrouter-arguments nil)
          (orgrouter-test--statuses nil)
          (orgrouter-after-route-hook (list #'orgrouter-test--record)))
     (unwind-protect
         (with-temp-buffer
           (rename-buffer "notes.org" t)
           (insert ,text)
           (org-mode)
           (set-buffer-modified-p nil)
           ,@body)
       (delete-directory default-directory t))))

(ert-deftest orgrouter-test-route-buffer-merges-and-keeps-point-mark-folding ()
  (skip-unless (orgrouter-test--route-available-p))
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((expected (orgrouter-test--expected-output
                     orgrouter-test-request-text (orgrouter--file-name))))
      (should-not (equal expected orgrouter-test-request-text))
      (should (string-prefix-p "#+TITLE: Groceries\n\n* Notes\nsome text to keep\n" expected))
      (goto-char (point-min))
      (search-forward "some text")
      (let ((point-before (point)))
        (push-mark (line-beginning-position) t t)
        (goto-char (point-min))
        (search-forward "* Notes")
        (outline-hide-subtree)
        (goto-char point-before)
        (should (invisible-p (point)))
        (orgrouter-route-buffer)
        (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
        (should (equal orgrouter-test--statuses '(changed)))
        (should (equal (buffer-string) expected))
        (should (string-match-p ":ORGROUTER_" (buffer-string)))
        (should (= (point) point-before))
        (should (= (mark t) (save-excursion (goto-char point-before) (line-beginning-position))))
        (should (invisible-p (point)))
        (should (buffer-modified-p))))))

(ert-deftest orgrouter-test-route-buffer-routes-the-whole-of-a-narrowed-buffer ()
  (skip-unless (orgrouter-test--route-available-p))
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((expected (orgrouter-test--expected-output
                     orgrouter-test-request-text (orgrouter--file-name))))
      (goto-char (point-min))
      (search-forward "* Notes")
      (org-narrow-to-subtree)
      (let ((narrowed (buffer-string)))
        (orgrouter-route-buffer)
        (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
        (should (equal orgrouter-test--statuses '(changed)))
        (should (equal (buffer-string) narrowed))
        (should (buffer-narrowed-p))
        (widen)
        (should (equal (buffer-string) expected))))))

(ert-deftest orgrouter-test-route-buffer-with-nothing-to-do-leaves-it-alone ()
  (skip-unless (orgrouter-test--route-available-p))
  (orgrouter-test--with-org-buffer orgrouter-test-plain-text
    (orgrouter-route-buffer)
    (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
    (should (equal orgrouter-test--statuses '(unchanged)))
    (should (equal (buffer-string) orgrouter-test-plain-text))
    (should-not (buffer-modified-p))))

(ert-deftest orgrouter-test-route-buffer-twice-is-idempotent ()
  (skip-unless (orgrouter-test--route-available-p))
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (orgrouter-route-buffer)
    (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
    (let ((once (buffer-string)))
      (setq orgrouter-test--statuses nil)
      (orgrouter-route-buffer)
      (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
      (should (equal orgrouter-test--statuses '(unchanged)))
      (should (equal (buffer-string) once)))))

(ert-deftest orgrouter-test-route-buffer-edited-meanwhile-is-not-clobbered ()
  (skip-unless (orgrouter-test--route-available-p))
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (orgrouter-route-buffer)
    ;; The process cannot have answered yet: nothing has waited for its output.
    (goto-char (point-max))
    (insert "typed while it ran\n")
    (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
    (should (equal orgrouter-test--statuses '(stale)))
    (should (equal (buffer-string)
                   (concat orgrouter-test-request-text "typed while it ran\n")))))

(ert-deftest orgrouter-test-route-error-shows-stderr ()
  (skip-unless (orgrouter-test--route-available-p))
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((orgrouter-arguments '("--no-such-option"))
          (orgrouter-last-error nil))
      (orgrouter-route-buffer)
      (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
      (should (equal orgrouter-test--statuses '(error)))
      (should (string-prefix-p "orgrouter route failed (exit 2): Usage: orgrouter route"
                               orgrouter-last-error))
      (should (string-suffix-p "orgrouter: error: No such option '--no-such-option'."
                               orgrouter-last-error))
      (should-not (string-match-p "Process .* finished" orgrouter-last-error))
      (should (equal (buffer-string) orgrouter-test-request-text))
      (should-not (buffer-modified-p)))))

(ert-deftest orgrouter-test-missing-program-is-a-user-error ()
  (orgrouter-test--with-org-buffer orgrouter-test-plain-text
    (let ((orgrouter-executable "/nonexistent/orgrouter"))
      (should-error (orgrouter-route-buffer) :type 'user-error))))

(ert-deftest orgrouter-test-route-file-writes-disk-and-reverts ()
  (skip-unless (orgrouter-test--route-available-p))
  (orgrouter-test--with-org-buffer ""
    (let ((file (expand-file-name "notes/groceries.org" default-directory)))
      (make-directory (file-name-directory file) t)
      (with-temp-file file (insert orgrouter-test-request-text))
      (let ((visiting (find-file-noselect file)))
        (unwind-protect
            (with-current-buffer visiting
              (orgrouter-route-file)
              (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
              (should (equal orgrouter-test--statuses '(changed)))
              (should-not (buffer-modified-p))
              (should (string-match-p ":ORGROUTER_" (buffer-string)))
              (should (equal (buffer-string)
                             (with-temp-buffer
                               (insert-file-contents file)
                               (buffer-string))))
              ;; Routing again finds nothing new.
              (setq orgrouter-test--statuses nil)
              (orgrouter-route-file)
              (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
              (should (equal orgrouter-test--statuses '(unchanged))))
          (kill-buffer visiting))))))

(ert-deftest orgrouter-test-route-file-refuses-unsaved-buffer ()
  (orgrouter-test--with-org-buffer ""
    (let ((file (expand-file-name "unsaved.org" default-directory)))
      (with-temp-file file (insert orgrouter-test-plain-text))
      (let ((visiting (find-file-noselect file)))
        (unwind-protect
            (with-current-buffer visiting
              (goto-char (point-max))
              (insert "* @agent do it\n")
              (should-error (orgrouter-route-file) :type 'user-error)
              (set-buffer-modified-p nil))
          (kill-buffer visiting))))))

(ert-deftest orgrouter-test-classify-region-shows-gate-json ()
  (skip-unless
   (eq 0 (call-process orgrouter-test-executable nil nil nil "classify" "--help")))
  (orgrouter-test--with-org-buffer "summarize this section, then create todos for the action items"
    (when (get-buffer "*orgrouter classify*")
      (kill-buffer "*orgrouter classify*"))
    (orgrouter-classify-region (point-min) (point-max))
    (orgrouter-test--wait-for
     (lambda ()
       (let ((buffer (get-buffer "*orgrouter classify*")))
         (and buffer (> (buffer-size buffer) 0)))))
    (let ((gate (with-current-buffer "*orgrouter classify*"
                  (json-parse-string (buffer-string) :object-type 'alist))))
      (dolist (key '(intent domain_tags risk_level confidence complexity primary_skill
                            support_skills chain guardian_decision guardian_risk mode
                            personas spawn bypass))
        (should (assq key gate))))))

(provide 'orgrouter-test)

;;; orgrouter-test.el ends here

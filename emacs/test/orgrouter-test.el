;;; orgrouter-test.el --- ERT tests for orgrouter.el, against the real program  -*- lexical-binding: t; -*-

;;; Commentary:

;; Run by tests/emacs/test_ert.py:
;;   ORGROUTER_TEST_EXECUTABLE=/path/to/orgrouter emacs --batch -Q -L emacs \
;;     -l emacs/test/orgrouter-test.el -f ert-run-tests-batch-and-exit
;; Every test runs the real orgrouter; none fakes it.  Tests defined with
;; `orgrouter-test-both' run twice: through the server (`orgrouter serve') and
;; through one process per command (`orgrouter route --stdin' and friends), and
;; check which path answered.

;;; Code:

(require 'ert)
(require 'org)
(require 'json)
(require 'orgrouter)

(defvar orgrouter-test-executable
  (or (getenv "ORGROUTER_TEST_EXECUTABLE") "orgrouter"))

(defconst orgrouter-test-request-text
  "#+TITLE: Groceries\n\n* Notes\nsome text to keep\nmore text, café ☕ 🦊\n\n* @agent create a todo to buy milk 🥛\n")

(defconst orgrouter-test-plain-text
  "#+TITLE: Plain\n\n* Notes\nnothing addressed to anyone here\n")

(defconst orgrouter-test-two-requests
  "* Shop\n** @agent create a todo to buy milk\n* Home ☕\n** @agent create a todo to fix the door\n")

(defconst orgrouter-test-approval-text
  "* Board\n** @agent send the report to the board\n")

(defvar orgrouter-test--statuses nil
  "Statuses `orgrouter-after-route-hook' reported, most recent first.")

(defun orgrouter-test--record (_buffer status)
  "Remember STATUS."
  (push status orgrouter-test--statuses))

(defun orgrouter-test--wait-for (predicate)
  "Wait up to 60 seconds for PREDICATE to return non-nil; fail if it never does."
  (let ((deadline (+ (float-time) 60)))
    (while (and (not (funcall predicate)) (< (float-time) deadline))
      (accept-process-output nil 0.05))
    (should (funcall predicate))))

(defun orgrouter-test--route-and-wait (command)
  "Run COMMAND interactively and wait for its route to finish; return the status."
  (setq orgrouter-test--statuses nil)
  (funcall command)
  (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
  (car orgrouter-test--statuses))

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

(defmacro orgrouter-test--with-notes (&rest body)
  "Run BODY in a fresh temp directory with a clean orgrouter environment."
  (declare (indent 0) (debug t))
  `(let* ((default-directory (file-name-as-directory (make-temp-file "orgrouter-ert" t)))
          (process-environment
           (append (list "ORGROUTER_NOW=2026-11-30T09:00"
                         (concat "HOME=" default-directory)
                         (concat "XDG_STATE_HOME=" default-directory "state")
                         (concat "XDG_CONFIG_HOME=" default-directory "config"))
                   process-environment))
          (orgrouter-executable orgrouter-test-executable)
          (orgrouter-arguments nil)
          (orgrouter-test--statuses nil)
          (orgrouter-after-route-hook (list #'orgrouter-test--record)))
     (unwind-protect
         (progn ,@body)
       (orgrouter-stop-server)
       (delete-directory default-directory t))))

(defmacro orgrouter-test--with-org-buffer (text &rest body)
  "Run BODY in a fresh Org buffer holding TEXT, visiting no file, in a temp dir."
  (declare (indent 1) (debug t))
  `(orgrouter-test--with-notes
     (with-temp-buffer
       (rename-buffer "notes.org" t)
       (insert ,text)
       (org-mode)
       (set-buffer-modified-p nil)
       ,@body)))

(defmacro orgrouter-test-both (name &rest body)
  "Define NAME-server and NAME-process, running BODY on each path.
In BODY, `path' is `server' or `process', the path that must answer."
  (declare (indent 1) (debug t))
  `(progn
     ,@(mapcar
        (lambda (path)
          `(ert-deftest ,(intern (format "%s-%s" name path)) ()
             (let ((orgrouter-use-server ,(eq path 'server))
                   (path ',path))
               (ignore path)
               ,@body)))
        '(server process))))

;;;; Routing a buffer

(orgrouter-test-both orgrouter-test-route-buffer-keeps-point-mark-folding-and-undo
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((expected (orgrouter-test--expected-output
                     orgrouter-test-request-text (orgrouter--file-name))))
      (should-not (equal expected orgrouter-test-request-text))
      (goto-char (point-min))
      (search-forward "some text")
      (let ((point-before (point)))
        (push-mark (line-beginning-position) t t)
        (goto-char (point-min))
        (search-forward "* Notes")
        (outline-hide-subtree)
        (goto-char point-before)
        (should (invisible-p (point)))
        (buffer-enable-undo)
        (undo-boundary)
        (if (eq path 'server)
            ;; The server's edits are applied as they come: no whole-buffer diff.
            (cl-letf (((symbol-function 'replace-buffer-contents)
                       (lambda (&rest _) (error "No diff on the server path"))))
              (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'changed)))
          (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'changed)))
        (should (eq orgrouter-last-route-path path))
        (should (equal (buffer-string) expected))
        (should (= (point) point-before))
        (should (= (mark t) (save-excursion (goto-char point-before) (line-beginning-position))))
        (should (invisible-p (point)))
        (should (buffer-modified-p))
        (should-not mode-line-process)
        ;; The result's drawer is folded: its first property line is hidden.
        (goto-char (point-min))
        (search-forward ":ORGROUTER_RESULT:")
        (should (invisible-p (point)))
        ;; One undo takes the whole route back.
        (goto-char point-before)
        (deactivate-mark)  ; an active region would undo in the region only
        (undo-boundary)    ; what the command loop adds after each command
        (let ((last-command nil))
          (undo))
        (should (equal (buffer-string) orgrouter-test-request-text))))))

(orgrouter-test-both orgrouter-test-route-buffer-routes-the-whole-of-a-narrowed-buffer
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((expected (orgrouter-test--expected-output
                     orgrouter-test-request-text (orgrouter--file-name))))
      (goto-char (point-min))
      (search-forward "* Notes")
      (org-narrow-to-subtree)
      (let ((narrowed (buffer-string)))
        (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'changed))
        (should (equal (buffer-string) narrowed))
        (should (buffer-narrowed-p))
        (widen)
        (should (equal (buffer-string) expected))))))

(orgrouter-test-both orgrouter-test-route-in-an-indirect-buffer-edits-the-shared-text
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((expected (orgrouter-test--expected-output
                     orgrouter-test-request-text
                     (expand-file-name "notes.org<indirect>")))
          (base (current-buffer))
          (indirect (make-indirect-buffer (current-buffer) "notes.org<indirect>" t)))
      (unwind-protect
          (with-current-buffer indirect
            (buffer-enable-undo)
            (undo-boundary)
            (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'changed))
            (should (eq orgrouter-last-route-path path))
            (should (equal (buffer-string) expected))
            (should (equal (with-current-buffer base (buffer-string)) expected))
            (undo-boundary)
            (let ((last-command nil))
              (undo))
            (should (equal (with-current-buffer base (buffer-string))
                           orgrouter-test-request-text)))
        (kill-buffer indirect)))))

(orgrouter-test-both orgrouter-test-route-buffer-with-nothing-to-do-says-so
  (orgrouter-test--with-org-buffer orgrouter-test-plain-text
    (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'unchanged))
    (should (eq orgrouter-last-route-path path))
    (should (equal orgrouter-last-message "orgrouter: notes.org: nothing to do"))
    (should (equal (buffer-string) orgrouter-test-plain-text))
    (should-not (buffer-modified-p))))

(orgrouter-test-both orgrouter-test-route-buffer-reports-how-many-results
  (orgrouter-test--with-org-buffer orgrouter-test-two-requests
    (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'changed))
    (should (string-suffix-p "routed 2 requests, 2 results" orgrouter-last-message))))

(orgrouter-test-both orgrouter-test-route-buffer-twice-is-idempotent
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (orgrouter-test--route-and-wait #'orgrouter-route-buffer)
    (let ((once (buffer-string)))
      (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'unchanged))
      (should (equal (buffer-string) once)))))

(orgrouter-test-both orgrouter-test-route-buffer-edited-meanwhile-is-not-clobbered
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (orgrouter-route-buffer)
    ;; Nothing has waited for output yet, so no answer can have been applied.
    (goto-char (point-max))
    (insert "typed while it ran\n")
    (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
    (should (equal orgrouter-test--statuses '(stale)))
    (should (equal (buffer-string)
                   (concat orgrouter-test-request-text "typed while it ran\n")))))

(orgrouter-test-both orgrouter-test-route-error-names-file-and-line
  (orgrouter-test--with-org-buffer "* ok\nbad \0 byte\n* @agent create a todo\n"
    (let ((orgrouter-last-error nil))
      (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'error))
      (should (string-match-p "notes\\.org:2" orgrouter-last-error))
      (should (string-match-p "NUL" orgrouter-last-error))
      (should-not (buffer-modified-p)))))

(ert-deftest orgrouter-test-route-error-of-the-process-shows-stderr ()
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((orgrouter-arguments '("--no-such-option"))
          (orgrouter-use-server nil)
          (orgrouter-last-error nil))
      (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'error))
      (should (string-prefix-p "orgrouter route failed (exit 2): Usage: orgrouter route"
                               orgrouter-last-error))
      (should (string-suffix-p "orgrouter: error: No such option '--no-such-option'."
                               orgrouter-last-error))
      (should-not (string-match-p "Process .* finished" orgrouter-last-error))
      (should (equal (buffer-string) orgrouter-test-request-text)))))

(ert-deftest orgrouter-test-a-server-that-cannot-start-falls-back-to-the-process ()
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((orgrouter-use-server t)
          (orgrouter-arguments '("--state" "state.db")))
      ;; `serve' takes --state too; break the server alone by making it exit at once.
      (cl-letf (((symbol-function 'orgrouter--server) (lambda () nil)))
        (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'changed)))
      (should (eq orgrouter-last-route-path 'process)))))

(ert-deftest orgrouter-test-the-server-is-restarted-when-it-dies ()
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((orgrouter-use-server t))
      (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'changed))
      (should (eq orgrouter-last-route-path 'server))
      (let ((first (jsonrpc--process orgrouter--connection)))
        (delete-process first)
        (orgrouter-test--wait-for (lambda () (null orgrouter--connection)))
        (erase-buffer)
        (insert orgrouter-test-request-text)
        (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'changed))
        (should (eq orgrouter-last-route-path 'server))
        (should-not (eq first (jsonrpc--process orgrouter--connection)))))))

(ert-deftest orgrouter-test-a-server-killed-mid-route-falls-back-to-the-process ()
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((orgrouter-use-server t)
          (expected (orgrouter-test--expected-output
                     orgrouter-test-request-text (orgrouter--file-name))))
      (orgrouter-route-buffer)
      (delete-process (jsonrpc--process orgrouter--connection))
      (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
      (should (equal orgrouter-test--statuses '(changed)))
      (should (eq orgrouter-last-route-path 'process))
      (should (equal (buffer-string) expected)))))

(orgrouter-test-both orgrouter-test-two-buffers-route-at-once
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((first (current-buffer))
          (expected-first (orgrouter-test--expected-output
                           orgrouter-test-request-text (orgrouter--file-name))))
      (with-temp-buffer
        (rename-buffer "other.org" t)
        (insert orgrouter-test-two-requests)
        (org-mode)
        (let ((expected-other (orgrouter-test--expected-output
                               orgrouter-test-two-requests (orgrouter--file-name))))
          (orgrouter-route-buffer)
          (with-current-buffer first (orgrouter-route-buffer))
          (orgrouter-test--wait-for (lambda () (= (length orgrouter-test--statuses) 2)))
          (should (equal orgrouter-test--statuses '(changed changed)))
          (should (equal (buffer-string) expected-other))
          (should (equal (with-current-buffer first (buffer-string)) expected-first)))))))

(ert-deftest orgrouter-test-one-server-per-emacs ()
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((orgrouter-use-server t))
      (orgrouter-test--route-and-wait #'orgrouter-route-buffer)
      (let ((first orgrouter--connection))
        (with-temp-buffer
          (insert orgrouter-test-two-requests)
          (org-mode)
          (orgrouter-test--route-and-wait #'orgrouter-route-buffer))
        (should (eq first orgrouter--connection))))))

(orgrouter-test-both orgrouter-test-mode-line-shows-a-running-route
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (orgrouter-route-buffer)
    (should (equal mode-line-process '(" orgrouter:routing")))
    (should-error (orgrouter-route-buffer) :type 'user-error)
    (orgrouter-test--wait-for (lambda () orgrouter-test--statuses))
    (should-not mode-line-process)))

(orgrouter-test-both orgrouter-test-abort-drops-the-answer
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (orgrouter-route-buffer)
    (orgrouter-abort)
    (should (equal orgrouter-test--statuses '(aborted)))
    (should-not mode-line-process)
    (should-error (orgrouter-abort) :type 'user-error)
    (accept-process-output nil 1.0)
    (should (equal (buffer-string) orgrouter-test-request-text))
    ;; A route after an abort works (the server is started again).
    (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'changed))))

(orgrouter-test-both orgrouter-test-route-subtree-routes-the-subtree-at-point
  (orgrouter-test--with-org-buffer orgrouter-test-two-requests
    (goto-char (point-min))
    (search-forward "fix the door")
    (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-subtree) 'changed))
    (should (string-match-p "TODO fix the door" (buffer-string)))
    (if (eq path 'server)
        (should-not (string-match-p "TODO buy milk" (buffer-string)))
      ;; Without the server the whole buffer is routed.
      (should (string-match-p "TODO buy milk" (buffer-string))))))

(ert-deftest orgrouter-test-missing-program-is-a-user-error ()
  (orgrouter-test--with-org-buffer orgrouter-test-plain-text
    (let ((orgrouter-executable "/nonexistent/orgrouter"))
      (should-error (orgrouter-route-buffer) :type 'user-error)
      (should-not orgrouter--running))))

;;;; Applying edits

(ert-deftest orgrouter-test-apply-edits-is-all-or-nothing ()
  (with-temp-buffer
    (insert "* a\n* b\n")
    (buffer-enable-undo)
    (orgrouter--apply-edits (vector (list :begin 4 :end 4 :text "** x\n")
                                    (list :begin 8 :end 8 :text "** y\n")))
    (should (equal (buffer-string) "* a\n** x\n* b\n** y\n"))
    (let ((before (buffer-string)))
      (should-error (orgrouter--apply-edits
                     (vector (list :begin 0 :end 0 :text "ok\n")
                             (list :begin 5 :end 999 :text "past the end"))))
      (should-error (orgrouter--apply-edits
                     (vector (list :begin 6 :end 6 :text "b\n")
                             (list :begin 2 :end 2 :text "out of order"))))
      (should (equal (buffer-string) before)))))

(orgrouter-test-both orgrouter-test-a-read-only-buffer-is-left-alone-with-a-message
  (orgrouter-test--with-org-buffer orgrouter-test-request-text
    (let ((orgrouter-last-error nil))
      (setq buffer-read-only t)
      (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'error))
      (should (string-match-p "nothing applied" orgrouter-last-error))
      (should (equal (buffer-string) orgrouter-test-request-text)))))

(orgrouter-test-both orgrouter-test-a-buffer-that-is-not-utf-8-is-refused-with-its-line
  (orgrouter-test--with-org-buffer "* ok\n"
    (goto-char (point-max))
    (insert "raw " (decode-coding-string "\xc1" 'utf-8) "\n* @agent create a todo\n")
    (set-buffer-modified-p nil)
    (let ((orgrouter-last-error nil))
      (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'error))
      (should (string-match-p "notes\\.org:2" orgrouter-last-error))
      (should-not (buffer-modified-p)))))

(ert-deftest orgrouter-test-list-pending-needs-a-note ()
  (orgrouter-test--with-org-buffer orgrouter-test-plain-text
    (should-error (orgrouter-list-pending) :type 'user-error)))

;;;; Routing a file

(orgrouter-test-both orgrouter-test-route-file-writes-disk-and-reverts
  (orgrouter-test--with-notes
    (let ((file (expand-file-name "notes/groceries.org" default-directory)))
      (make-directory (file-name-directory file) t)
      (with-temp-file file (insert orgrouter-test-request-text))
      (let ((visiting (find-file-noselect file)))
        (unwind-protect
            (with-current-buffer visiting
              (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-file) 'changed))
              (should-not (buffer-modified-p))
              (should (string-match-p ":ORGROUTER_" (buffer-string)))
              (should (equal (buffer-string)
                             (with-temp-buffer
                               (insert-file-contents file)
                               (buffer-string))))
              (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-file) 'unchanged)))
          (kill-buffer visiting))))))

(ert-deftest orgrouter-test-route-file-refuses-unsaved-buffer ()
  (orgrouter-test--with-notes
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

;;;; Classifying

(ert-deftest orgrouter-test-request-at-point-strips-everything-but-the-instruction ()
  (orgrouter-test--with-org-buffer
      "* Top\n** TODO [#A] please @agent summarize this section :work:urgent:\nbody\n*** @agent\n- buy milk\n- call mom\n  - not this one\n"
    (goto-char (point-min))
    (search-forward "body")
    (should (equal (orgrouter--request-at-point) '("summarize this section")))
    (search-forward "buy")
    (should (equal (orgrouter--request-at-point) '("" "buy milk" "call mom")))
    (goto-char (point-min))
    (should-error (orgrouter--request-at-point) :type 'user-error)))

(orgrouter-test-both orgrouter-test-classify-at-point-shows-the-gate
  (orgrouter-test--with-org-buffer "* TODO [#B] @agent delete the old drafts :work:\n"
    (when (get-buffer "*orgrouter classify*")
      (kill-buffer "*orgrouter classify*"))
    (goto-char (point-max))
    (orgrouter-classify-at-point)
    (orgrouter-test--wait-for
     (lambda ()
       (let ((buffer (get-buffer "*orgrouter classify*")))
         (and buffer (> (buffer-size buffer) 0)))))
    (let ((gate (with-current-buffer "*orgrouter classify*"
                  (json-parse-string (buffer-string) :object-type 'alist))))
      (dolist (key '(intent domain_tags risk_level confidence complexity primary_skill
                            support_skills chain guardian_decision guardian_risk mode
                            personas spawn bypass))
        (should (assq key gate)))
      (should (equal (alist-get 'risk_level gate) "high")))
    (should (string-match-p "risk high" orgrouter-last-message))))

(orgrouter-test-both orgrouter-test-classify-region-shows-gate-json
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
      (should (assq 'chain gate)))))

;;;; Approvals and what waits

(orgrouter-test-both orgrouter-test-approve-then-route-runs-it
  (orgrouter-test--with-org-buffer orgrouter-test-approval-text
    (orgrouter-mode 1)
    (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'changed))
    (should (string-match-p "^\\*\\*\\* WAITING Approve: send the report" (buffer-string)))
    ;; The keywords are this buffer's, set locally: C-c C-t knows them.
    (should (local-variable-p 'org-todo-keywords))
    (should (member "APPROVED" org-todo-keywords-1))
    (should-not (string-match-p "#\\+TODO" (buffer-string)))
    (goto-char (point-min))
    (should-error (orgrouter-approve) :type 'user-error) ; not an approval
    (search-forward "Approve: send")
    (orgrouter-approve)
    (should (string-match-p "^\\*\\*\\* APPROVED Approve: send" (buffer-string)))
    (should-error (orgrouter-approve) :type 'user-error) ; decided already
    (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'changed))
    (should (string-match-p ":ORGROUTER_STATUS: approved" (buffer-string)))))

(orgrouter-test-both orgrouter-test-reject-closes-it
  (orgrouter-test--with-org-buffer orgrouter-test-approval-text
    (orgrouter-test--route-and-wait #'orgrouter-route-buffer)
    (should (eq orgrouter-last-route-path path))
    (goto-char (point-min))
    (search-forward "Approve: send")
    (orgrouter-reject)
    (should (string-match-p "^\\*\\*\\* REJECTED Approve: send" (buffer-string)))
    (should (eq (orgrouter-test--route-and-wait #'orgrouter-route-buffer) 'changed))
    (should (string-match-p ":ORGROUTER_STATUS: rejected" (buffer-string)))))

(orgrouter-test-both orgrouter-test-list-pending-visits-the-headline
  (orgrouter-test--with-notes
    (let ((notes (expand-file-name "notes/" default-directory)))
      (make-directory notes t)
      (with-temp-file (expand-file-name "orgrouter.toml" notes))
      (with-temp-file (expand-file-name "todo.org" notes)
        (insert "* Inbox\n** @agent create a todo to buy milk\n"))
      (with-temp-file (expand-file-name "approval.org" notes)
        (insert orgrouter-test-approval-text))
      ;; Route approval.org on disk so it holds a WAITING approval.
      (with-current-buffer (find-file-noselect (expand-file-name "approval.org" notes))
        (orgrouter-test--route-and-wait #'orgrouter-route-file)
        (kill-buffer))
      (with-current-buffer (find-file-noselect (expand-file-name "todo.org" notes))
        (unwind-protect
            (progn
              (orgrouter-list-pending)
              (orgrouter-test--wait-for
               (lambda () (with-current-buffer "*orgrouter pending*" tabulated-list-entries)))
              (with-current-buffer "*orgrouter pending*"
                (let ((rows (mapcar (lambda (entry) (append (cadr entry) nil))
                                    tabulated-list-entries)))
                  (should (equal (mapcar (lambda (row) (list (nth 0 row) (nth 2 row) (nth 3 row)))
                                         rows)
                                 '(("approval" "approval.org" "7")
                                   ("request" "todo.org" "2")))))
                (goto-char (point-min))
                (while (not (equal (car (tabulated-list-get-id)) (expand-file-name "approval.org" notes)))
                  (forward-line 1))
                (orgrouter-pending-visit)
                (should (equal (file-name-nondirectory buffer-file-name) "approval.org"))
                (should (looking-at "\\*\\*\\* WAITING Approve: send"))
                (kill-buffer)))
          (kill-buffer (get-buffer "*orgrouter pending*"))
          (kill-buffer (find-buffer-visiting (expand-file-name "todo.org" notes))))))))

;;;; The minor mode

(ert-deftest orgrouter-test-mode-keys-leave-org-agenda-alone ()
  (orgrouter-test--with-org-buffer orgrouter-test-plain-text
    (orgrouter-mode 1)
    (should (eq (key-binding (kbd "C-c _ r")) #'orgrouter-route-buffer))
    (should (eq (key-binding (kbd "C-c _ s")) #'orgrouter-route-subtree))
    (should (eq (key-binding (kbd "C-c _ l")) #'orgrouter-list-pending))
    (should (eq (key-binding (kbd "C-c _ k")) #'orgrouter-abort))
    (should-not (lookup-key orgrouter-mode-map (kbd "C-c a")))
    (should (eq (key-binding (kbd "C-c C-t")) #'org-todo))
    (orgrouter-mode -1)
    (should-not (eq (key-binding (kbd "C-c _ r")) #'orgrouter-route-buffer))))

(provide 'orgrouter-test)

;;; orgrouter-test.el ends here
